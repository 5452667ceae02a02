{#
    The append-only log of everything ever landed: one chunk per file, in the
    order files arrived. Each run appends the new files only and never reads the
    points already stored; everything a run appends is one Iceberg commit, so a
    run that dies leaves no trace and its files are simply ingested again. A
    run that finds no new file writes nothing (write mode `none`, see the
    incremental materialization).

    Row kinds (see _landing__models.yml): point, reject, column, chunk.

    When the log lives (or, on the first run, will live) in a local folder,
    the table function that reads the new files also writes their rows as the
    log's data files, and the incremental materialization commits them with
    add_files (write mode `files`, decision 0021; on the first run it creates
    the empty table from the columns' data types first): the query below then
    selects the files written. Otherwise Spark writes the rows: each task the
    rows it read, one open file per partition (write.distribution-mode none,
    fanout), no exchange of every point before the write. A table created
    before that gets the properties in a pre-hook.

    The table function also stores each point's values in flat columns, one
    per column type and name (`tag__host`), which it adds to the table before
    the commit and names on the column rows (`flat_column`, decision 0025);
    measurement models read them instead of the maps. Spark's write keeps the
    maps alone.

    Reads count each file as at least 16 MB (read.split.open-file-cost): a run
    reads the few small files of its new chunks one task each, on every core,
    instead of in one task; a full rebuild's files are larger and split as
    before. The small files of chunk, column and reject rows are read one task
    each too, and each run adds some: once a partition of them has
    `tsdedup_raw_log_compact_files` files, the post-hook rewrites them into
    one (compact_raw_log_when_needed).
#}
{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        file_format='iceberg',
        partition_by=['row_kind', 'measurement', 'partition_day'],
        on_schema_change='fail',
        tblproperties={
            'write.distribution-mode': 'none',
            'write.spark.fanout.enabled': 'true',
            'read.split.open-file-cost': '16777216',
            'tsdedup.flat_columns': 'true',
            'tsdedup.day_partitions': 'true',
        },
        pre_hook=[
            "{{ tsdedup.missing_raw_columns() }}",
            "{{ tsdedup.missing_table_properties() }}",
        ],
        post_hook=["{{ tsdedup.compact_raw_log_when_needed() }}"],
    )
}}

{#- The post-hook's setting, checked before anything is ingested. -#}
{%- do tsdedup.raw_log_compact_files() -%}
{%- set registry = this if is_incremental() else none -%}
{%- set files = tsdedup.new_landed_files(registry) -%}
{%- set ingest_time_ns = (run_started_at.timestamp() | int) * 1000000000 + run_started_at.microsecond * 1000 -%}

{#- The new files by folder (normally all in the landing folder): one scan each.
    A file of 0 bytes has no content to scan (Spark's file sources skip it). -#}
{%- set folders = {} -%}
{%- set empty_files = [] -%}
{%- for file in files -%}
{%- set folder = file.source_path[:file.source_path.rfind('/')] -%}
{%- if file.source_bytes == 0 -%}
{%- do empty_files.append(file) -%}
{%- else -%}
{%- do folders.setdefault(folder, []).append(file) -%}
{%- endif -%}
{%- endfor %}
{%- set files_folder = tsdedup.raw_files_folder(this) if files else none -%}
{%- if registry is not none and not files %}
/* tsdedup write mode: none */
{% elif files_folder is not none %}
/* tsdedup write mode: files */
{% endif %}
with
{%- if files %}
new_files as (
    {#- Each file's place in ingestion order, decided from the listing. #}
    select
        chunk_seq,
        source_file,
        source_path
    from
        values
        {%- for file in files %}
        {%- set name_literal = tsdedup.string_literal(file.source_file) %}
        {%- set path_literal = tsdedup.string_literal(file.source_path) %}
        ({{ file.chunk_seq }}, {{ name_literal }}, {{ path_literal }}){{ ',' if not loop.last }}
        {%- endfor %}
            as new_files (chunk_seq, source_file, source_path)
),
{%- endif %}

landed_files as (
    {#- A file in a local folder is read by the table function itself (content
        NULL): the scan lists it without reading it. Elsewhere (HDFS, S3) Spark
        reads the bytes and hands them over. #}
    {%- for folder, folder_files in folders.items() %}
    select
        cast(n.chunk_seq as bigint) as chunk_seq,
        n.source_file,
        n.source_path,
        b.length as source_bytes,
        b.modificationTime as source_modified_at,
        {{ 'cast(null as binary)' if folder.startswith('file:') else 'b.content' }} as content
    from {{ tsdedup.binary_files_in_folder(
        folder,
        folder_files | map(attribute='source_file') | list,
        glob=folder_files | map(attribute='glob_ok') | min,
    ) }} as b
    inner join new_files as n
        on b.path = n.source_path
    {%- if not loop.last %}

    union all
    {%- endif %}
    {%- else %}
    {#- Nothing new: an empty input with the same columns. #}
    select
        cast(null as bigint) as chunk_seq,
        cast(null as string) as source_file,
        cast(null as string) as source_path,
        cast(null as bigint) as source_bytes,
        cast(null as timestamp) as source_modified_at,
        cast(null as binary) as content
    where 1 = 0
    {%- endfor %}
    {%- for file in empty_files %}

    union all

    select
        cast({{ file.chunk_seq }} as bigint) as chunk_seq,
        {{ tsdedup.string_literal(file.source_file) }} as source_file,
        {{ tsdedup.string_literal(file.source_path) }} as source_path,
        cast(0 as bigint) as source_bytes,
        cast({{ tsdedup.string_literal(file.source_modified_at) }} as timestamp) as source_modified_at,
        x'' as content
    {%- endfor %}
),

{%- if files_folder is not none %}

written_files as (
    {#- Each task writes its files' rows as data files of its own under the
        run's folder and names them; the materialization commits them all
        with add_files (python_udfs/raw_files.py). #}
    select
        w.path,
        w.row_kind,
        w.measurement,
        w.rows,
        w.point_columns
    from landed_files as f,
        lateral tsdedup_write_chunks(
            f.chunk_seq,
            f.source_file,
            f.source_path,
            f.source_bytes,
            unix_micros(f.source_modified_at),
            f.content,
            {{ tsdedup.string_literal(var('tsdedup_precision', 'ns')) }},
            {{ ingest_time_ns // 1000 }},
            {{ tsdedup.string_literal(invocation_id) }},
            {{ tsdedup.string_literal(files_folder) }}
        ) as w
)

select
    path,
    row_kind,
    measurement,
    rows,
    point_columns
from written_files
{%- else %}
{#- The log's columns: those the table function added for its point
    columns (decision 0025) read NULL in the rows of Spark's write. #}
{%- set stored_columns = {} -%}
{%- if execute and is_incremental() and files -%}
    {%- for column in adapter.get_columns_in_relation(this) -%}
        {%- do stored_columns.update({column.name: column.dtype}) -%}
    {%- endfor -%}
{%- endif %}

chunk_rows as (
    select
        f.chunk_seq,
        r.position,
        r.row_kind,
        f.source_file,
        r.measurement,
        {{ tsdedup.chunk_map('r.tags', 'string') }} as tags,
        {{ tsdedup.chunk_map('r.fields_float', 'double') }} as fields_float,
        {{ tsdedup.chunk_map('r.fields_int', 'bigint') }} as fields_int,
        {{ tsdedup.chunk_map('r.fields_uint', 'decimal(20, 0)') }} as fields_uint,
        {{ tsdedup.chunk_map('r.fields_string', 'string') }} as fields_string,
        {{ tsdedup.chunk_map('r.fields_bool', 'boolean') }} as fields_bool,
        r.time_ns,
        -- the point's UTC day (86,400 s in nanoseconds), as the table function computes it
        if(
            r.row_kind = 'point',
            date_from_unix_date(cast({{ tsdedup.floor_div('r.time_ns', 86400000000000) }} as int)),
            null
        ) as partition_day,
        r.time_from_ingest,
        r.line_text,
        r.reject_reason,
        r.column_name,
        r.column_type,
        cast(null as string) as flat_column,
        r.lines_read,
        if(r.row_kind = 'chunk', f.source_path, null) as source_path,
        if(r.row_kind = 'chunk', f.source_bytes, null) as source_bytes,
        if(r.row_kind = 'chunk', f.source_modified_at, null) as source_modified_at,
        r.content_sha256
    from landed_files as f,
        lateral tsdedup_read_chunk(
            f.source_file,
            f.source_path,
            f.content,
            {{ tsdedup.string_literal(var('tsdedup_precision', 'ns')) }},
            {{ ingest_time_ns }}
        ) as r
)

select
    chunk_seq,
    position,
    row_kind,
    source_file,
    measurement,
    tags,
    fields_float,
    fields_int,
    fields_uint,
    fields_string,
    fields_bool,
    time_ns,
    partition_day,
    time_from_ingest,
    line_text,
    reject_reason,
    column_name,
    column_type,
    flat_column,
    lines_read,
    source_path,
    source_bytes,
    source_modified_at,
    content_sha256,
    {%- for name, data_type in stored_columns.items() if name not in model['columns'] %}
    {#- A point column of the table function's runs; Spark's write keeps the maps alone. #}
    cast(null as {{ data_type }}) as {{ tsdedup.quote_identifier(name) }},
    {%- endfor %}
    cast({{ tsdedup.string_literal(run_started_at.strftime('%Y-%m-%d %H:%M:%S.%f')) }} as timestamp) as ingested_at,
    {{ tsdedup.string_literal(invocation_id) }} as invocation_id
from chunk_rows
{%- endif %}
