{% macro _keep_last_row_subquery(relation, columns, partition_by, order_by) %}
    {%- set sql -%}
    select
        {{ columns | join(',\n        ') }}
    from (
        select
            {{ columns | join(',\n            ') }},
            row_number() over (
                partition by {{ partition_by | join(', ') }}
                order by {{ tsdedup._descending(order_by) }}
            ) as ingest_rank
        from {{ relation }}
    ) as ranked
    where ingest_rank = 1
    {%- endset -%}
    {{ return(sql) }}
{% endmacro %}
