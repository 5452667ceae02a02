{#
    Per chunk: its accepted points, their time range, and the timestamp
    precision the chunk was read in (the one its file name declares, else
    var('tsdedup_precision'), by the reader's own rule: tsdedup_file_precision).
    A table, appended to for the new chunks only, because a view cannot call a
    function registered by the session; rpt_suspect_times reads it. A run
    with no new chunk writes nothing (write mode `none`).
#}
{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        file_format='iceberg',
        on_schema_change='append_new_columns',
    )
}}

{%- set after_chunk = tsdedup.last_cataloged_chunk_seq(this) if is_incremental() else 0 %}
{%- if is_incremental() and not tsdedup.rows_after_chunk('stg_chunks', after_chunk) %}
/* tsdedup write mode: none */
{% endif %}

with chunk_times as (
    select
        chunk_seq,
        sum(point_count) as points,
        min(min_time_ns) as min_time_ns,
        max(max_time_ns) as max_time_ns
    from {{ ref('sort_key_catalog') }}
    where chunk_seq > {{ after_chunk }}
    group by chunk_seq
)

select
    c.chunk_seq,
    c.source_file,
    c.ingested_at,
    c.invocation_id,
    coalesce(t.points, 0) as points,
    t.min_time_ns,
    t.max_time_ns,
    tsdedup_file_precision(
        c.source_file, {{ tsdedup.string_literal(var('tsdedup_precision')) }}
    ) as read_precision
from {{ ref('stg_chunks') }} as c
left join chunk_times as t
    on c.chunk_seq = t.chunk_seq
where c.chunk_seq > {{ after_chunk }}
