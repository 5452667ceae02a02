{#
    The query point_layout answers from: one row per column the chunks after
    `after_chunk` write, with the flat columns that hold it; none when the
    measurement's points are read from the maps whatever it would say
    (_measurements__macros.yml).
#}
{% macro point_layout_sql(measurement_name, after_chunk=0) %}
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
    {{ return(sql) }}
{% endmacro %}
