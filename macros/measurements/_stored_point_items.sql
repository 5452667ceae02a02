{#
    The select list that reads a measurement table's rows as points that come
    before every chunk in ingestion order (chunk 0): a column the table does not
    have yet reads as NULL of its type.
#}
{% macro _stored_point_items(columns, stored_columns) %}
    {%- set items = ['0 as chunk_seq', '0 as position', 'time_ns'] -%}
    {%- for column in columns['tags'] -%}
        {%- do items.append(tsdedup.quote_identifier(column) if column in stored_columns
            else 'cast(null as string) as ' ~ tsdedup.quote_identifier(column)) -%}
    {%- endfor -%}
    {%- for field in columns['fields'] -%}
        {%- do items.append(tsdedup.quote_identifier(field.name) if field.name in stored_columns
            else 'cast(null as ' ~ tsdedup.field_sql_type(field.type) ~ ') as ' ~ tsdedup.quote_identifier(field.name)) -%}
    {%- endfor -%}
    {{ return(items) }}
{% endmacro %}
