{#
    Whether the raw log holds a point of a chunk after `chunk_seq`. Iceberg
    answers from the data files' chunk_seq bounds, so asking costs a few
    milliseconds where a model's whole query over no new chunk costs seconds.
#}
{% macro raw_points_after(chunk_seq) %}
    {%- if not execute -%}
        {{ return(true) }}
    {%- endif -%}
    {#- Not ref(): callers ask only in incremental runs, and read the raw log
        through their own refs anyway. -#}
    {%- set points = tsdedup.model_relation('stg_points') -%}
    {%- set sql -%}
        select 1 from {{ points }} where chunk_seq > {{ chunk_seq | int }} limit 1
    {%- endset -%}
    {{ return(run_query(sql).rows | length > 0) }}
{% endmacro %}
