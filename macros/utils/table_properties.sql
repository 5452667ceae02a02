{# A table's properties (`show tblproperties`) as a dict of strings; {} when not executing. #}
{% macro table_properties(relation) %}
    {%- set properties = {} -%}
    {%- if execute and relation is not none -%}
        {%- for row in run_query('show tblproperties ' ~ relation).rows -%}
            {%- do properties.update({row[0]: row[1]}) -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(properties) }}
{% endmacro %}
