{#
    The chunk catalog: for every chunk and time partition (measurement, day) it
    touches, its points and time range, the chunk's own sort key and the
    partition's sort key after it,
    following the IOx rules (python_udfs/sort_key.py). Rows with `key_changed`
    are the partition key's history: the first chunk of a partition sets it,
    a chunk with new tags extends it just before `time`.

    Incremental: each run folds only the chunks after the last one recorded,
    starting from each partition's current key. That chunk number is read
    before the run and written into the query as a literal, which Spark pushes
    down to the scans of the raw log's points: Iceberg skips the data files of
    older chunks by their chunk_seq bounds instead of reading every point ever
    landed to filter them afterwards. When the raw log holds no point after
    that chunk, nothing is written (write mode `none`, see the incremental
    materialization) and the query is planned empty (`and false`).
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
{%- set nothing_new = is_incremental() and not tsdedup.rows_after_chunk('stg_points', after_chunk) %}
{%- if nothing_new %}
/* tsdedup write mode: none */
{% endif %}
with new_chunks as (
    select
        measurement,
        partition_day,
        chunk_seq,
        point_count,
        min_time_ns,
        max_time_ns,
        cardinalities
    from {{ ref('int_chunk_tag_cardinalities') }}
    {%- if is_incremental() %}
    where chunk_seq > {{ after_chunk }}
    {%- endif %}
    {%- if nothing_new %}
    -- no point landed after chunk {{ after_chunk }}: Spark plans no scan at all
    and false
    {%- endif %}
),

current_keys as (
    {%- if is_incremental() %}
    select
        measurement,
        partition_day,
        max_by(partition_key, chunk_seq) as partition_key
    from {{ this }}
    group by measurement, partition_day
    {%- else %}
    select
        cast(null as string) as measurement,
        cast(null as date) as partition_day,
        cast(null as array<string>) as partition_key
    where 1 = 0
    {%- endif %}
),

partitions as (
    select
        n.measurement,
        n.partition_day,
        k.partition_key as current_key,
        -- in any order: the fold applies them by chunk_seq
        collect_list(struct(n.chunk_seq, n.cardinalities)) as chunks
    from new_chunks as n
    left join current_keys as k
        on n.measurement = k.measurement and n.partition_day = k.partition_day
    group by n.measurement, n.partition_day, k.partition_key
),

folded as (
    select
        measurement,
        partition_day,
        tsdedup_fold_sort_keys(current_key, chunks) as changes
    from partitions
),

chunk_keys as (
    select
        f.measurement,
        f.partition_day,
        c.chunk_seq,
        c.chunk_key,
        c.partition_key,
        c.changed as key_changed
    from folded as f
        lateral view inline(f.changes) c as chunk_seq, partition_key, chunk_key, changed
)

select
    k.measurement,
    k.partition_day,
    k.chunk_seq,
    k.chunk_key,
    k.partition_key,
    k.key_changed,
    n.cardinalities,
    n.point_count,
    n.min_time_ns,
    n.max_time_ns,
    cast({{ tsdedup.string_literal(run_started_at.strftime('%Y-%m-%d %H:%M:%S.%f')) }} as timestamp) as recorded_at
from chunk_keys as k
inner join new_chunks as n
    on
        k.measurement = n.measurement
        and k.partition_day = n.partition_day
        and k.chunk_seq = n.chunk_seq
