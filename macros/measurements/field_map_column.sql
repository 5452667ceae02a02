{# The raw_chunks map column that holds fields of a type, from column_types. #}
{% macro field_map_column(field_type) %}
    {%- set types = tsdedup.column_types() -%}
    {%- if field_type == 'tag' or field_type not in types -%}
        {% do exceptions.raise_compiler_error("tsdedup: unknown field type '" ~ field_type ~ "'") %}
    {%- endif -%}
    {{ return(types[field_type]['map']) }}
{% endmacro %}
