{#
    The select list that turns stg_points rows of a measurement into its wide
    columns: ingestion order, time_ns, one column per tag and per field (read
    from the map of the field's established type).
#}
{% macro _new_point_items(columns, alias='') %}
    {%- set p = alias ~ '.' if alias else '' -%}
    {%- set items = [p ~ 'chunk_seq', p ~ 'position', p ~ 'time_ns'] -%}
    {%- for tag in columns['tags'] -%}
        {%- do items.append(p ~ 'tags[' ~ tsdedup.string_literal(tag) ~ '] as ' ~ tsdedup.quote_identifier(tag)) -%}
    {%- endfor -%}
    {%- for field in columns['fields'] -%}
        {%- do items.append(p ~ tsdedup.field_map_column(field.type) ~ '[' ~ tsdedup.string_literal(field.name) ~ '] as ' ~ tsdedup.quote_identifier(field.name)) -%}
    {%- endfor -%}
    {{ return(items) }}
{% endmacro %}
