{# The Spark SQL type of a measurement column of a field type (or 'tag'), from column_types. #}
{% macro field_sql_type(field_type) %}
    {%- set types = tsdedup.column_types() -%}
    {%- if field_type not in types -%}
        {% do exceptions.raise_compiler_error("tsdedup: unknown field type '" ~ field_type ~ "'") %}
    {%- endif -%}
    {{ return(types[field_type]['sql']) }}
{% endmacro %}
