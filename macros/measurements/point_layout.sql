{#
    Where a measurement's points keep their values: each column the chunks
    after `after_chunk` write and the raw log's flat column that holds it, or
    none when the maps must be read (decision 0025; _measurements__macros.yml).
    `rows` are the answer to point_layout_sql when another query asked it
    (new_chunk_days, decision 0036).
#}
{% macro point_layout(measurement_name, after_chunk=0, rows=none) %}
    {%- set sql = tsdedup.point_layout_sql(measurement_name, after_chunk) -%}
    {%- if sql is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set raw = ref('raw_chunks') -%}
    {%- set layout = {} -%}
    {%- for row in (rows if rows is not none else run_query(sql).rows) -%}
        {%- if row['chunks_without'] > 0 or row['flat_columns'] != 1 -%}
            {{ return(none) }}
        {%- endif -%}
        {%- do layout.setdefault(row['column_type'], {}).update({row['column_name']: row['flat_column']}) -%}
    {%- endfor -%}
    {#- A measurement whose columns did not fit in the log's schema
        (add_raw_point_columns) has them in its files only. -#}
    {%- if layout -%}
        {%- set stored = adapter.tsdedup_columns(raw) | map(attribute='name') | map('lower') | list -%}
        {%- for flat_columns in layout.values() -%}
            {%- for flat_column in flat_columns.values() if flat_column | lower not in stored -%}
                {{ return(none) }}
            {%- endfor -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(layout) }}
{% endmacro %}
