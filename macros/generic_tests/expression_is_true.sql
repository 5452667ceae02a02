{# Fails with the rows where `<column> <expression>` is not true. #}
{% test expression_is_true(model, column_name, expression) %}
    select *
    from {{ model }}
    where not coalesce({{ column_name }} {{ expression }}, false)
{% endtest %}
