{#
    Fails with the rows that `model` and `expected` do not share, counted with
    their repeats (NULL equal to NULL): the model must return exactly the
    expected rows, in any order. Columns are compared by position.
#}
{% test equal_rows(model, expected) %}
with missing as (
    select * from {{ expected }}
    except all
    select * from {{ model }}
),

unexpected as (
    select * from {{ model }}
    except all
    select * from {{ expected }}
)

select 'missing' as side, * from missing
union all
select 'unexpected' as side, * from unexpected
{% endtest %}
