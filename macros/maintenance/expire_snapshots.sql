{#
    Maintenance: forget table versions older than the retention window and
    delete the files only they used (Iceberg `expire_snapshots`). Time travel
    (`version as of`, `timestamp as of`) works for every version inside the
    window; the current version and the last `retain_last` ones are always kept,
    and no file that a kept version reads is deleted.

        tsdedup run-operation expire_snapshots                       # 7 days
        tsdedup run-operation expire_snapshots --args '{retain_days: 30}'

    Applies to every Iceberg table of the project (raw chunks, catalog,
    measurement tables, run statistics), or to the models in `models`.
#}
{% macro expire_snapshots(retain_days=7, retain_last=1, models=none) %}
    {%- if retain_days is not number or retain_days < 0 -%}
        {% do exceptions.raise_compiler_error("tsdedup.expire_snapshots: retain_days must be a number of days (0 or more), got " ~ retain_days) %}
    {%- endif -%}
    {%- if retain_last is not number or retain_last < 1 -%}
        {% do exceptions.raise_compiler_error("tsdedup.expire_snapshots: retain_last must be a whole number of at least 1, got " ~ retain_last) %}
    {%- endif -%}
    {%- set catalog = var('tsdedup_iceberg_catalog', 'spark_catalog') -%}
    {%- set cutoff = modules.datetime.datetime.utcnow() - modules.datetime.timedelta(days=retain_days) -%}
    {%- set tables = tsdedup.maintained_relations(models) -%}
    {%- for relation in tables -%}
        {%- set call -%}
call {{ catalog }}.system.expire_snapshots(
    table => {{ tsdedup.string_literal(relation | string) }},
    older_than => TIMESTAMP '{{ cutoff.strftime('%Y-%m-%d %H:%M:%S.%f') }}',
    retain_last => {{ retain_last }}
)
        {%- endset -%}
        {%- set outcome = run_query(call).rows[0] -%}
        {{ log("tsdedup: " ~ relation ~ ": versions before " ~ cutoff.strftime('%Y-%m-%d %H:%M:%S') ~ " UTC expired; "
            ~ outcome[0] ~ " data files and " ~ outcome[3] ~ " manifests deleted", info=True) }}
    {%- endfor -%}
{% endmacro %}
