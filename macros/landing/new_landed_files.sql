{#
    The landed files that a run of `raw_chunks` must ingest, with their new
    chunk_seq, in ingestion order, decided from file metadata and the chunk
    registry. What is skipped, `glob_ok`, names with ':' and files of 0 bytes:
    _landing__macros.yml; docs/operations.md, "Landing files".
#}
{% macro new_landed_files(registry) %}
    {% if not execute %}
        {{ return([]) }}
    {% endif %}
    {%- set max_files = var('tsdedup_max_files_per_run', 1000) | int -%}
    {%- set listing_sql -%}
        with listed as (
            -- binaryFile lists paths as they are (not URL-encoded): a name with
            -- '%' or '+' must not be decoded
            select
                path,
                length,
                modificationTime as modification_time
            from {{ tsdedup.binary_file_path(tsdedup.landing_path()) }}

            union all

            -- files of 0 bytes, which Spark's file sources do not list
            select
                path,
                cast(0 as bigint) as length,
                modification_time
            from tsdedup_empty_files({{ tsdedup.string_literal(tsdedup.landing_path()) }})
        ),

        landed as (
            select
                path as source_path,
                length as source_bytes,
                modification_time as source_modified_at,
                -- any name with ':' in the folder (data file or not) stops a glob
                -- over it: Hadoop's glob cannot list such a name
                bool_or(regexp_extract(path, '[^/]+$', 0) like '%:%') over () as folder_has_colon_name
            from listed
        ),

        named as (
            select
                source_path,
                regexp_extract(source_path, '[^/]+$', 0) as source_file,
                source_bytes,
                source_modified_at,
                folder_has_colon_name
            from landed
            where lower(source_path) rlike '[.](lp|txt|csv)([.]gz)?$|[.]parquet$'
        )

        select
            n.source_path,
            n.source_file,
            n.source_bytes,
            cast(n.source_modified_at as string) as source_modified_at,
            n.folder_has_colon_name,
            {% if registry is not none -%}
            exists(
                select 1 from {{ registry }} as r
                where r.row_kind = 'chunk' and r.source_file = n.source_file
            ) as name_seen
            {%- else -%}
            false as name_seen
            {%- endif %}
        from named as n
        {% if registry is not none -%}
        where not exists (
            select 1 from {{ registry }} as r
            where
                r.row_kind = 'chunk'
                and r.source_file = n.source_file
                and r.source_bytes = n.source_bytes
                and r.source_modified_at = n.source_modified_at
        )
        {%- endif %}
        order by n.source_file
    {%- endset -%}
    {#- The listing reads no file's bytes, yet Spark splits it as if it did:
        one task per 25 or so files of a megabyte. With splits as large as
        the folder, it lists in one task per core. -#}
    {%- set split_setting = 'spark.sql.files.maxPartitionBytes' -%}
    {%- set listing_split = '1099511627776' -%}
    {%- set split_size = tsdedup.spark_setting(split_setting) -%}
    {%- if split_size.startswith(listing_split) -%}
        {#- Left by a listing that failed (a resident engine keeps its session):
            Spark's default. -#}
        {%- set split_size = '134217728b' -%}
    {%- endif -%}
    {%- do tsdedup.set_spark_setting(split_setting, listing_split) -%}
    {%- set listed = run_query(listing_sql) -%}
    {%- do tsdedup.set_spark_setting(split_setting, split_size) -%}

    {%- set next_seq = namespace(value=1) -%}
    {%- if registry is not none -%}
        {%- set max_sql -%}
            select coalesce(max(chunk_seq), 0) + 1 from {{ registry }} where row_kind = 'chunk'
        {%- endset -%}
        {%- set next_seq.value = run_query(max_sql).columns[0].values()[0] | int -%}
    {%- endif -%}

    {#- Files with the name of an ingested file but another size or time: which of
        them still hold the content ingested under that name, found with one
        query over all of them (one scan, however many files were touched). -#}
    {%- set unchanged = tsdedup._unchanged_landed_files(registry, listed.rows | selectattr('name_seen') | list) -%}

    {%- set files = [] -%}
    {%- set deferred = namespace(count=0) -%}
    {%- for row in listed.rows -%}
        {%- set keep = namespace(value=true) -%}
        {%- if ':' in row['source_file'] -%}
            {#- Hadoop's file system cannot open such a name (it reads it as a URI). -#}
            {%- set keep.value = false -%}
            {{ log("tsdedup: not ingesting " ~ row['source_file'] ~ ": a file name with ':' cannot be read; rename the file"
                ~ " (until then the new files are read one by one, which is slower)", info=True) }}
        {%- elif row['source_file'] in unchanged -%}
            {#- Same name and content as an ingested file, another size or time. -#}
            {%- set keep.value = false -%}
        {%- endif -%}
        {%- if keep.value and files | length < max_files -%}
            {%- do files.append({
                'chunk_seq': next_seq.value + files | length,
                'source_path': row['source_path'],
                'source_file': row['source_file'],
                'glob_ok': not row['folder_has_colon_name'],
                'source_bytes': row['source_bytes'] | int,
                'source_modified_at': row['source_modified_at'],
            }) -%}
        {%- elif keep.value -%}
            {%- set deferred.count = deferred.count + 1 -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if files -%}
        {%- do tsdedup.validate_chunk_seq(files[-1]['chunk_seq']) -%}
    {%- endif -%}
    {%- if deferred.count > 0 -%}
        {{ log("tsdedup: " ~ deferred.count ~ " more new file(s) wait for the next run (at most "
            ~ max_files ~ " per run, var tsdedup_max_files_per_run)", info=True) }}
    {%- endif -%}
    {{ log("tsdedup: " ~ files | length ~ " new file(s) to ingest from " ~ tsdedup.landing_path(), info=True) }}
    {{ return(files) }}
{% endmacro %}
