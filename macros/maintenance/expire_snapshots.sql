{#
    Run-operation: forgets table versions older than the retention window and
    deletes the files only they used (Iceberg `expire_snapshots`); every
    version inside the window stays readable by time travel. Arguments:
    _maintenance__macros.yml; docs/operations.md, "Maintenance and time travel".
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
