{#
    var('tsdedup_raw_log_compact_files') (default 32), checked: 0 (never
    compact) or a whole number of files of at least 2; anything else stops
    the run with a clear error. raw_chunks asks it while compiling, so a bad
    value stops the run before anything is ingested.
#}
{% macro raw_log_compact_files() %}
    {%- set min_files = var('tsdedup_raw_log_compact_files', 32) -%}
    {%- if min_files is not number or min_files != min_files | int or min_files < 0 or min_files == 1 -%}
        {% do exceptions.raise_compiler_error("tsdedup: var tsdedup_raw_log_compact_files must be 0 (never compact)"
            ~ " or a whole number of files of at least 2, got " ~ min_files) %}
    {%- endif -%}
    {{ return(min_files | int) }}
{% endmacro %}
