{#
    The `min_files` argument of a compaction operation (`operation`, for the
    message): a whole number of at least 2, as one file is already compact.
#}
{% macro validate_min_files(operation, min_files) %}
    {%- if min_files is not number or min_files < 2 -%}
        {% do exceptions.raise_compiler_error("tsdedup." ~ operation ~ ": min_files must be a whole number of at least 2, got " ~ min_files) %}
    {%- endif -%}
{% endmacro %}
