{#
    Deduplicate points: one row per key (all tag columns + time_ns, NULL equal to
    NULL), the winner decided by ingestion order `order_by`.
      mode 'fields'   - per field, the last non-null value (default)
      mode 'last_row' - the whole last row
#}
{% macro deduplicate_points(relation, key_columns, field_columns, order_by, mode='fields') %}
    {% do tsdedup.validate_dedup_mode(mode) %}
    {% if not key_columns %}
        {% do exceptions.raise_compiler_error("deduplicate_points: `key_columns` must list at least the time column") %}
    {% endif %}
    {% if mode == 'last_row' or not field_columns %}
        {{ return(tsdedup.keep_last_row(relation, key_columns + field_columns, key_columns, order_by)) }}
    {% endif %}
    {{ return(tsdedup.merge_last_non_null(relation, key_columns, field_columns, order_by)) }}
{% endmacro %}
