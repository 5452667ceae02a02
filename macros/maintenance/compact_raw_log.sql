{#
    Run-operation: rewrites the raw log's chunk, column and reject rows (a few
    small files per run, which every run reads again) into one file per
    partition; point rows keep their files, and rows do not change. Arguments:
    _maintenance__macros.yml; docs/operations.md, "Maintenance and time travel".
#}
{% macro compact_raw_log(min_files=2, dry_run=false, quiet=false) %}
    {%- do tsdedup.validate_min_files('compact_raw_log', min_files) -%}
    {%- set raw = tsdedup.model_relation('raw_chunks') -%}
    {%- if adapter.get_relation(database=raw.database, schema=raw.schema, identifier=raw.identifier) is none -%}
        {{ log("tsdedup: " ~ raw ~ " does not exist yet: nothing to compact", info=not quiet) }}
        {{ return('') }}
    {%- endif -%}
    {%- set candidates = run_query(
        'select p.`partition`.row_kind, p.`partition`.measurement, p.file_count'
        ~ ' from ' ~ raw ~ '.partitions as p'
        ~ " where p.`partition`.row_kind <> 'point' and p.file_count >= " ~ min_files
        ~ ' order by 1, 2'
    ).rows -%}
    {{ log("tsdedup: " ~ raw ~ ": " ~ candidates | length ~ " partition(s) of chunk, column or reject rows with " ~ min_files ~ " or more files", info=not quiet) }}
    {%- for row_kind, measurement, file_count in candidates -%}
        {{ log("tsdedup: " ~ raw ~ " " ~ row_kind ~ " rows of " ~ (measurement if measurement is not none else "no measurement") ~ ": " ~ ("would rewrite " if dry_run else "") ~ file_count ~ " files", info=not quiet) }}
    {%- endfor -%}
    {%- if candidates and not dry_run -%}
        {%- set call -%}
call {{ var('tsdedup_iceberg_catalog', 'spark_catalog') }}.system.rewrite_data_files(
    table => {{ tsdedup.string_literal(raw | string) }},
    where => "row_kind <> 'point'",
    options => map('min-input-files', '{{ min_files }}')
)
        {%- endset -%}
        {%- set outcome = run_query(call).rows[0] -%}
        {{ log("tsdedup: " ~ raw ~ ": " ~ outcome[0] ~ " files rewritten into " ~ outcome[1], info=True) }}
    {%- endif -%}
{% endmacro %}
