{#
    The values of a raw point row as a point of a measurement, each named
    after its column, from the maps or, with `layout`, from the raw log's flat
    columns (decisions 0013, 0025; _measurements__macros.yml).
#}
{% macro _new_point_items(columns, alias='', layout=none) %}
    {%- set p = alias ~ '.' if alias else '' -%}
    {%- set items = [p ~ 'time_ns as time_ns'] -%}
    {%- set typed = [] -%}
    {%- for tag in columns['tags'] -%}
        {%- do typed.append((tag, 'tag')) -%}
    {%- endfor -%}
    {%- for field in columns['fields'] -%}
        {%- do typed.append((field.name, field.type)) -%}
    {%- endfor -%}
    {%- for name, column_type in typed -%}
        {%- set as_name = ' as ' ~ tsdedup.quote_identifier(name) -%}
        {%- if layout is none -%}
            {%- set map_column = 'tags' if column_type == 'tag' else tsdedup.field_map_column(column_type) -%}
            {%- do items.append(p ~ map_column ~ '[' ~ tsdedup.string_literal(name) ~ ']' ~ as_name) -%}
        {%- elif name in layout.get(column_type, {}) -%}
            {%- do items.append(p ~ tsdedup.quote_identifier(layout[column_type][name]) ~ as_name) -%}
        {%- else -%}
            {%- do items.append('cast(null as ' ~ tsdedup.field_sql_type(column_type) ~ ')' ~ as_name) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(items) }}
{% endmacro %}
