{#
    For raw_chunks' post-hook: compact_raw_log, for the partitions of chunk,
    column and reject rows that have `tsdedup_raw_log_compact_files` data
    files or more (dbt_project.yml; 0 turns it off). Every run adds a few
    such files and reads them all again, so without it each run would cost
    more than the one before. One metadata query per run; a rewrite now and
    then, logged. Returns no SQL.
#}
{% macro compact_raw_log_when_needed() %}
    {%- set min_files = var('tsdedup_raw_log_compact_files', 32) -%}
    {%- if execute and min_files | int != 0 -%}
        {%- do tsdedup.compact_raw_log(min_files=min_files | int, quiet=true) -%}
    {%- endif -%}
    {{ return('') }}
{% endmacro %}
