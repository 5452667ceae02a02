{# The key of a point as grouping expressions: `point.<key>` for each key column, then the hidden keys. #}
{% macro _point_keys(key_columns, hidden_keys=[]) %}
    {%- set keys = [] -%}
    {%- for key in key_columns -%}
        {%- do keys.append('point.' ~ key) -%}
    {%- endfor -%}
    {{ return(keys + hidden_keys) }}
{% endmacro %}
