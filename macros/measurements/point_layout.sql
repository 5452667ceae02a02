{#
    Where a measurement's points keep their values: each column the chunks
    after `after_chunk` write and the raw log's flat column that holds it, or
    none when the maps must be read (decision 0025; _measurements__macros.yml).
#}
{% macro point_layout(measurement_name, after_chunk=0) %}
    {%- if not execute or not var('tsdedup_read_flat_columns', true)
        or measurement_name in var('tsdedup_columns', {}) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set raw = ref('raw_chunks') -%}
    {%- set cached = adapter.get_relation(raw.database, raw.schema, raw.identifier) -%}
    {#- (A log this run created has no information cached, and the column.) -#}
    {%- if cached is none or (cached.information and 'tsdedup.flat_columns=true' not in cached.information) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set sql -%}
        select
            c.column_type,
            c.column_name,
            min(c.flat_column) as flat_column,
            count(*) - count(c.flat_column) as chunks_without,
            count(distinct c.flat_column) as flat_columns
        from {{ raw }} as c
        left anti join {{ source('tsdedup_runs', 'retracted_chunks') }} as r
            on c.chunk_seq = r.chunk_seq
        where
            c.row_kind = 'column'
            and c.measurement = {{ tsdedup.string_literal(measurement_name) }}
            {%- if after_chunk %}
            and c.chunk_seq > {{ after_chunk }}
            {%- endif %}
        group by c.column_type, c.column_name
    {%- endset -%}
    {%- set layout = {} -%}
    {%- for row in run_query(sql).rows -%}
        {%- if row['chunks_without'] > 0 or row['flat_columns'] != 1 -%}
            {{ return(none) }}
        {%- endif -%}
        {%- do layout.setdefault(row['column_type'], {}).update({row['column_name']: row['flat_column']}) -%}
    {%- endfor -%}
    {#- A measurement whose columns did not fit in the log's schema
        (add_raw_point_columns) has them in its files only. -#}
    {%- if layout -%}
        {%- set stored = adapter.get_columns_in_relation(raw) | map(attribute='name') | map('lower') | list -%}
        {%- for flat_columns in layout.values() -%}
            {%- for flat_column in flat_columns.values() if flat_column | lower not in stored -%}
                {{ return(none) }}
            {%- endfor -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(layout) }}
{% endmacro %}
