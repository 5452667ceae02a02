{# The raw_chunks map column that holds fields of a type. #}
{% macro field_map_column(field_type) %}
    {%- set maps = {
        'float': 'fields_float',
        'integer': 'fields_int',
        'unsigned': 'fields_uint',
        'string': 'fields_string',
        'boolean': 'fields_bool',
    } -%}
    {%- if field_type not in maps -%}
        {% do exceptions.raise_compiler_error("tsdedup: unknown field type '" ~ field_type ~ "'") %}
    {%- endif -%}
    {{ return(maps[field_type]) }}
{% endmacro %}
