{#
    Keep one row per key: the last in `order_by` (ingestion order). Emits QUALIFY
    where the engine has it and the equivalent ranked subquery where it does not
    (Spark 3.5 rejects QUALIFY with PARSE_SYNTAX_ERROR). `columns` are the output
    columns, listed because Spark 3.5 has no `select * except`.
#}
{% macro keep_last_row(relation, columns, partition_by, order_by) %}
    {{ return(adapter.dispatch('keep_last_row', 'tsdedup')(relation, columns, partition_by, order_by)) }}
{% endmacro %}

{% macro default__keep_last_row(relation, columns, partition_by, order_by) %}
    {{ return(tsdedup._keep_last_row_qualify(relation, columns, partition_by, order_by)) }}
{% endmacro %}

{# Spark: QUALIFY only when the project says the engine supports it (Spark >= 4.2). #}
{% macro spark__keep_last_row(relation, columns, partition_by, order_by) %}
    {% if var('tsdedup_supports_qualify', none) in [true, 'true', 'True'] %}
        {{ return(tsdedup._keep_last_row_qualify(relation, columns, partition_by, order_by)) }}
    {% endif %}
    {{ return(tsdedup._keep_last_row_subquery(relation, columns, partition_by, order_by)) }}
{% endmacro %}

{# Databricks has had QUALIFY for years. #}
{% macro databricks__keep_last_row(relation, columns, partition_by, order_by) %}
    {{ return(tsdedup._keep_last_row_qualify(relation, columns, partition_by, order_by)) }}
{% endmacro %}
