{% macro _keep_last_row_qualify(relation, columns, partition_by, order_by) %}
    {%- set sql -%}
    select
        {{ columns | join(',\n        ') }}
    from {{ relation }}
    qualify row_number() over (
        partition by {{ partition_by | join(', ') }}
        order by {{ tsdedup._descending(order_by) }}
    ) = 1
    {%- endset -%}
    {{ return(sql) }}
{% endmacro %}
