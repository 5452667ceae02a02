{#
    For raw_chunks' post-hook: compact_raw_log, for the partitions of chunk,
    column and reject rows that have raw_log_compact_files() data files or
    more (var `tsdedup_raw_log_compact_files`; 0 turns it off). Every run adds
    a few such files and reads them all again, so without it each run would
    cost more than the one before. One metadata query per run; a rewrite now
    and then, logged. Returns no SQL.
#}
{% macro compact_raw_log_when_needed() %}
    {%- set min_files = tsdedup.raw_log_compact_files() -%}
    {%- if execute and min_files != 0 -%}
        {%- do tsdedup.compact_raw_log(min_files=min_files, quiet=true) -%}
    {%- endif -%}
    {{ return('') }}
{% endmacro %}
