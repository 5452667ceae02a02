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

    The new chunks' counts are computed once: the fold returns one change per
    chunk in chunk order, and each change is zipped back onto its chunk.
    They are int_chunk_tag_cardinalities' (the same select,
    chunk_tag_cardinalities), without its test of every point against
    int_type_conflicts when no new chunk writes a column in conflict with the
    column catalog (conflicting_column_types, from the column rows alone):
    most runs have none, and that test would read the new points once more.
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
{%- set type_conflicts = nothing_new or tsdedup.conflicting_column_types(after_chunk=after_chunk) | length > 0 %}
{%- if nothing_new %}
/* tsdedup write mode: none */
{% endif %}
-- depends_on: {{ ref('int_chunk_tag_cardinalities') }}
with new_chunks as (
    select
        measurement,
        partition_day,
        chunk_seq,
        point_count,
        min_time_ns,
        max_time_ns,
        cardinalities
    from (
        {{ tsdedup.chunk_tag_cardinalities(after_chunk, leave_out_type_conflicts=type_conflicts) | indent(8) }}
    ) as cardinalities
    {%- if nothing_new %}
    -- no point landed after chunk {{ after_chunk }}: Spark plans no scan at all
    where false
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
        -- in chunk order: the fold returns one change per chunk in that order
        array_sort(
            collect_list(
                struct(n.chunk_seq, n.cardinalities, n.point_count, n.min_time_ns, n.max_time_ns)
            ),
            (l, r) -> case when l.chunk_seq < r.chunk_seq then -1 when l.chunk_seq > r.chunk_seq then 1 else 0 end
        ) as chunks
    from new_chunks as n
    left join current_keys as k
        on n.measurement = k.measurement and n.partition_day = k.partition_day
    group by n.measurement, n.partition_day, k.partition_key
),

folded as (
    select
        measurement,
        partition_day,
        chunks,
        tsdedup_fold_sort_keys(current_key, chunks) as changes
    from partitions
),

-- each chunk beside its change: the chunks' counts are computed once
chunk_keys as (
    select
        f.measurement,
        f.partition_day,
        z.chunk_change.chunks as chunk,
        z.chunk_change.changes as change
    from folded as f
        lateral view explode(arrays_zip(f.chunks, f.changes)) z as chunk_change
)

select
    measurement,
    partition_day,
    chunk.chunk_seq,
    change.chunk_key,
    change.partition_key,
    change.changed as key_changed,
    chunk.cardinalities,
    chunk.point_count,
    chunk.min_time_ns,
    chunk.max_time_ns,
    cast({{ tsdedup.string_literal(run_started_at.strftime('%Y-%m-%d %H:%M:%S.%f')) }} as timestamp) as recorded_at
from chunk_keys
