{#
    The values of a stg_points row as a point of a measurement: time_ns, one
    value per tag and per field (read from the map of the field's established
    type), each named after its column. Measurement models put them in the
    struct `point` (see deduplicate_points).
#}
{% macro _new_point_items(columns, alias='') %}
    {%- set p = alias ~ '.' if alias else '' -%}
    {%- set items = [p ~ 'time_ns as time_ns'] -%}
    {%- for tag in columns['tags'] -%}
        {%- do items.append(p ~ 'tags[' ~ tsdedup.string_literal(tag) ~ '] as ' ~ tsdedup.quote_identifier(tag)) -%}
    {%- endfor -%}
    {%- for field in columns['fields'] -%}
        {%- do items.append(p ~ tsdedup.field_map_column(field.type) ~ '[' ~ tsdedup.string_literal(field.name) ~ '] as ' ~ tsdedup.quote_identifier(field.name)) -%}
    {%- endfor -%}
    {{ return(items) }}
{% endmacro %}
