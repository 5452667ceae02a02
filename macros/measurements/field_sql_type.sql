{# The Spark SQL type of a measurement column of a field type (or 'tag'). #}
{% macro field_sql_type(field_type) %}
    {%- set types = {
        'tag': 'string',
        'float': 'double',
        'integer': 'bigint',
        'unsigned': 'decimal(20, 0)',
        'string': 'string',
        'boolean': 'boolean',
    } -%}
    {%- if field_type not in types -%}
        {% do exceptions.raise_compiler_error("tsdedup: unknown field type '" ~ field_type ~ "'") %}
    {%- endif -%}
    {{ return(types[field_type]) }}
{% endmacro %}
