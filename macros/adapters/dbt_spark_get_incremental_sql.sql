{#
    dbt-spark's choice of write statement for incremental models, extended for
    measurement tables: a model whose compiled SQL starts with
    `/* tsdedup write mode: append */` (tsdedup.measurement decided, from
    metadata, that nothing stored can share a key with the new points) is
    inserted into the table instead of overwriting the partitions it touches.
    Every other model, and every other mode, is written as dbt-spark writes it.
#}
{% macro dbt_spark_get_incremental_sql(strategy, source, target, existing, unique_key, incremental_predicates) %}
    {%- if strategy == 'insert_overwrite' and (model.compiled_code or '').lstrip().startswith('/* tsdedup write mode: append */') -%}
        {{ return(get_insert_into_sql(source, target)) }}
    {%- endif -%}
    {{ return(dbt.dbt_spark_get_incremental_sql(strategy, source, target, existing, unique_key, incremental_predicates)) }}
{% endmacro %}
