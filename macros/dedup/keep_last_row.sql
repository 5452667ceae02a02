{#
    Keep one `point` per key: the last in `order_by` (ingestion order). Emits
    QUALIFY where the engine has it and the equivalent ranked subquery where it
    does not (Spark 3.5 rejects QUALIFY with PARSE_SYNTAX_ERROR). `hidden_keys`
    are further key columns beside `point`.
#}
{% macro keep_last_row(relation, key_columns, order_by, hidden_keys=[]) %}
    {{ return(adapter.dispatch('keep_last_row', 'tsdedup')(relation, key_columns, order_by, hidden_keys)) }}
{% endmacro %}

{% macro default__keep_last_row(relation, key_columns, order_by, hidden_keys=[]) %}
    {{ return(tsdedup._keep_last_row_qualify(relation, key_columns, order_by, hidden_keys)) }}
{% endmacro %}

{# Spark: QUALIFY only when the project says the engine supports it (Spark >= 4.2). #}
{% macro spark__keep_last_row(relation, key_columns, order_by, hidden_keys=[]) %}
    {% if var('tsdedup_supports_qualify', none) in [true, 'true', 'True'] %}
        {{ return(tsdedup._keep_last_row_qualify(relation, key_columns, order_by, hidden_keys)) }}
    {% endif %}
    {{ return(tsdedup._keep_last_row_subquery(relation, key_columns, order_by, hidden_keys)) }}
{% endmacro %}

{# Databricks has had QUALIFY for years. #}
{% macro databricks__keep_last_row(relation, key_columns, order_by, hidden_keys=[]) %}
    {{ return(tsdedup._keep_last_row_qualify(relation, key_columns, order_by, hidden_keys)) }}
{% endmacro %}
