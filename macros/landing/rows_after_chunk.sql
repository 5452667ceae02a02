{#
    Whether a staging model of the raw log (stg_points, stg_chunks) holds a row
    of a chunk after `chunk_seq`. Iceberg answers from the data files'
    chunk_seq bounds, so asking costs a few milliseconds where a model's whole
    query over no new chunk costs seconds.
#}
{% macro rows_after_chunk(model_name, chunk_seq) %}
    {%- if not execute -%}
        {{ return(true) }}
    {%- endif -%}
    {#- Not ref(): callers ask only in incremental runs, and read the raw log
        through their own refs anyway. -#}
    {%- set sql -%}
        select 1 from {{ tsdedup.model_relation(model_name) }} where chunk_seq > {{ chunk_seq | int }} limit 1
    {%- endset -%}
    {{ return(run_query(sql).rows | length > 0) }}
{% endmacro %}
