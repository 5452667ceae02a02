{#
    Run-operation: deletes the files in the tables' folders that no version
    references (Iceberg `remove_orphan_files`), such as a killed run's
    uncommitted data files, if older than `older_than_days`; run it after
    expire_snapshots. Arguments: _maintenance__macros.yml; docs/operations.md,
    "Maintenance and time travel".
#}
{% macro remove_orphan_files(older_than_days=3, models=none, dry_run=false) %}
    {%- if older_than_days is not number or older_than_days < 1 -%}
        {% do exceptions.raise_compiler_error("tsdedup.remove_orphan_files: older_than_days must be a number of days, at least 1 (a younger file may belong to a run that has not committed yet), got " ~ older_than_days) %}
    {%- endif -%}
    {%- set catalog = var('tsdedup_iceberg_catalog', 'spark_catalog') -%}
    {%- set cutoff = modules.datetime.datetime.utcnow() - modules.datetime.timedelta(days=older_than_days) -%}
    {%- for relation in tsdedup.maintained_relations(models) -%}
        {%- set call -%}
call {{ catalog }}.system.remove_orphan_files(
    table => {{ tsdedup.string_literal(relation | string) }},
    older_than => TIMESTAMP '{{ cutoff.strftime('%Y-%m-%d %H:%M:%S.%f') }}',
    dry_run => {{ 'true' if dry_run else 'false' }}
)
        {%- endset -%}
        {%- set orphans = run_query(call).rows | length -%}
        {{ log("tsdedup: " ~ relation ~ ": " ~ orphans ~ " orphan file(s) older than "
            ~ cutoff.strftime('%Y-%m-%d %H:%M:%S') ~ " UTC " ~ ("found (dry run)" if dry_run else "deleted"), info=True) }}
    {%- endfor -%}
{% endmacro %}
