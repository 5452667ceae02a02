{#
    The values of a measurement table's row (alias `alias`) as a point, each
    named after its column (a struct field takes a column's name): time_ns, one value per tag and per field; a column
    the table does not have yet reads as NULL of its type. Measurement models
    put them in the struct `point`; the row comes before every chunk in
    ingestion order (chunk 0).
#}
{% macro _stored_point_items(columns, stored_columns, alias) %}
    {%- set items = [alias ~ '.time_ns'] -%}
    {%- for column in columns['tags'] -%}
        {%- set name = tsdedup.quote_identifier(column) -%}
        {%- do items.append(alias ~ '.' ~ name if column in stored_columns
            else 'cast(null as string) as ' ~ name) -%}
    {%- endfor -%}
    {%- for field in columns['fields'] -%}
        {%- set name = tsdedup.quote_identifier(field.name) -%}
        {%- do items.append(alias ~ '.' ~ name if field.name in stored_columns
            else 'cast(null as ' ~ tsdedup.field_sql_type(field.type) ~ ') as ' ~ name) -%}
    {%- endfor -%}
    {{ return(items) }}
{% endmacro %}
