{#
    Whether a measurement model's write-mode `header` (write_mode_header) names
    a row-level merge: modes `merge` and `replace`, written by
    merge_measurement_sql.
#}
{% macro is_row_level_write(header) %}
    {{ return(header.startswith('/* tsdedup write mode: merge') or header.startswith('/* tsdedup write mode: replace')) }}
{% endmacro %}
