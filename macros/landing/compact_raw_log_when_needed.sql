{#
    For raw_chunks' post-hook: compact_raw_log, quietly, for the partitions of
    chunk, column and reject rows that have raw_log_compact_files() data files
    or more (0 turns it off). Returns no SQL. Why and what it costs:
    _landing__macros.yml; docs/operations.md, "Maintenance and time travel".
#}
{% macro compact_raw_log_when_needed() %}
    {%- set min_files = tsdedup.raw_log_compact_files() -%}
    {%- if execute and min_files != 0 -%}
        {%- do tsdedup.compact_raw_log(min_files=min_files, quiet=true) -%}
    {%- endif -%}
    {{ return('') }}
{% endmacro %}
