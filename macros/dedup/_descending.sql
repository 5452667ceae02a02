{# `a, b` -> `a desc, b desc`: the last in ingestion order comes first. #}
{% macro _descending(order_by) %}
    {%- set parts = [] -%}
    {%- for column in order_by -%}
        {%- do parts.append(column ~ ' desc') -%}
    {%- endfor -%}
    {{ return(parts | join(', ')) }}
{% endmacro %}
