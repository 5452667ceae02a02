"""The stock dbt-spark contender: an incremental model with
``incremental_strategy='merge'`` and ``unique_key`` = the ten tags + time, over
the same raw chunks tsdedup ingested (``stg_points``).

It is written the way the dbt documentation teaches: each run selects the points
of the chunks after the newest one the table holds, keeps one row per key among
them (Spark's MERGE refuses a source with two rows for one target row), and
dbt-spark merges that into the table: matched keys are updated with the whole
new row, new keys are inserted. So it keeps the last delivery's row, not the
last value of every field: a partial-field copy blanks the fields it omits.
The table is partitioned by day like tsdedup's, with Iceberg's defaults
otherwise. The benchmark adds it to its private copy of the project only.
"""

from __future__ import annotations

from bench.schema import FIELDS, MEASUREMENT, TAGS

MODEL_NAME = "cpu_merge"
MODEL_PATH = f"models/benchmark/{MODEL_NAME}.sql"


def merge_model_sql() -> str:
    """The model file's text."""
    unique_key = ", ".join(f"'{name}'" for name in (*TAGS, "time_ns"))
    tag_items = ",\n        ".join(f"tags['{t}'] as {t}" for t in TAGS)
    field_items = ",\n        ".join(f"fields_float['{f}'] as {f}" for f in FIELDS)
    key = ", ".join((*TAGS, "time_ns"))
    columns = ",\n    ".join((*TAGS, *FIELDS))
    return f"""{{{{
    config(
        materialized='incremental',
        incremental_strategy='merge',
        unique_key=[{unique_key}],
        file_format='iceberg',
        partition_by=['days(time)'],
    )
}}}}

with new_points as (
    select
        {tag_items},
        {field_items},
        time_ns,
        chunk_seq,
        position
    from {{{{ ref('stg_points') }}}}
    where
        measurement = '{MEASUREMENT}'
        {{% if is_incremental() %}}
        and chunk_seq > (select coalesce(max(chunk_seq), 0) from {{{{ this }}}})
        {{% endif %}}
),

latest as (
    select
        *,
        row_number() over (
            partition by {key}
            order by chunk_seq desc, position desc
        ) as delivery_rank
    from new_points
)

select
    {columns},
    timestamp_micros(time_ns div 1000) as `time`,
    time_ns,
    chunk_seq
from latest
where delivery_rank = 1
"""
