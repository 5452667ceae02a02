{#
    The column catalog: every column of every measurement with its one type.
    The type that appears first in ingestion order wins (chunk sequence, then
    position); a later point that writes another type is a type conflict
    (see int_type_conflicts). Column names are compared without case, as the
    metastore does: the spelling that appears first wins too, and a later point
    that writes the column with another spelling is a name conflict.

    A table, because a run reads it many times (every measurement model, the
    type-conflict check) and a view would rank every column row again at each
    read. Its rows change only
    when a chunk uses a column the catalog does not list, or when a chunk it
    took a first use from is retracted; a run finds that out with one query
    (column_catalog_gaps) and otherwise writes nothing (write mode `none`).
    When something changed, the whole catalog is computed again and replaces
    the table (static overwrite: an empty catalog empties it too).

    Its readers see the catalog of the last run that built it. A run that
    ingests without it (`--select raw_chunks`) leaves a column first used in
    the new chunks out of the type-conflict check (int_type_conflicts, the
    live views, rpt_rejects) until the next run that builds it; a measurement
    model refuses to merge such chunks (require_current_column_catalog).
#}
{{
    config(
        materialized='incremental',
        incremental_strategy='insert_overwrite',
        file_format='iceberg',
        on_schema_change='append_new_columns',
        pre_hook='set spark.sql.sources.partitionOverwriteMode = STATIC',
    )
}}

{%- if is_incremental() and tsdedup.column_catalog_gaps(this) == 0 %}
/* tsdedup write mode: none */
{% endif %}
with first_use as (
    select
        measurement,
        column_name,
        column_type,
        min(struct(chunk_seq, position)) as first_seen
    from {{ ref('stg_columns') }}
    group by measurement, column_name, column_type
),

ranked as (
    select
        measurement,
        column_name,
        column_type,
        first_seen,
        row_number() over (
            partition by measurement, lower(column_name)
            order by first_seen
        ) as type_rank
    from first_use
)

select
    measurement,
    column_name,
    column_type,
    first_seen.chunk_seq as first_chunk_seq,
    first_seen.position as first_position
from ranked
where type_rank = 1
