{#
    Deduplicate points: one row per key (every tag column + time_ns, NULL equal
    to NULL), the winner decided by ingestion order `order_by`.
      mode 'fields'   - per field, the last non-null value (default)
      mode 'last_row' - the whole last row
    `relation` holds a struct column `point` (the key and field columns, by
    those names) beside the ordering columns; the result is one `point` per key,
    of the same shape. Data names live only inside `point`, so no tag or field
    can share a name with an ordering column (docs/decisions/0013).
    `hidden_keys` are further key columns of `relation` beside `point`, left out
    of the result (the live view's tags it has no column for).
#}
{% macro deduplicate_points(relation, key_columns, field_columns, order_by, mode='fields', hidden_keys=[]) %}
    {% do tsdedup.validate_dedup_mode(mode) %}
    {% if not key_columns %}
        {% do exceptions.raise_compiler_error("deduplicate_points: `key_columns` must list at least the time column") %}
    {% endif %}
    {% if mode == 'last_row' or not field_columns %}
        {{ return(tsdedup.keep_last_row(relation, key_columns, order_by, hidden_keys)) }}
    {% endif %}
    {{ return(tsdedup.merge_last_non_null(relation, key_columns, field_columns, order_by, hidden_keys)) }}
{% endmacro %}
