{#
    dbt-spark's choice of write statement for incremental models, extended for
    measurement tables. tsdedup.measurement starts its compiled SQL with the
    write mode that plan_measurement_write chose from metadata:

      - `/* tsdedup write mode: append */`: nothing stored can share a key with
        the new points; they are inserted into the table;
      - `/* tsdedup write mode: merge, ... */`: they are merged into the stored
        rows row by row (merge_measurement_sql);
      - `/* tsdedup write mode: overwrite */` (or a rebuild): the partitions they
        touch are overwritten, as dbt-spark writes insert_overwrite.

    Appends and overwrites come sorted by each day's own key, so the table's
    write order (set for a merge) is cleared first. Every other model is
    written as dbt-spark writes it.
#}
{% macro dbt_spark_get_incremental_sql(strategy, source, target, existing, unique_key, incremental_predicates) %}
    {%- set code = (model.compiled_code or '').lstrip() -%}
    {%- if strategy == 'insert_overwrite' and code.startswith('/* tsdedup write mode: ') -%}
        {%- if code.startswith('/* tsdedup write mode: merge') -%}
            {{ return(tsdedup.merge_measurement_sql(source, target, code.split('\n', 1)[0])) }}
        {%- endif -%}
        {%- do tsdedup.set_write_order(target, []) -%}
        {%- if code.startswith('/* tsdedup write mode: append */') -%}
            {{ return(get_insert_into_sql(source, target)) }}
        {%- endif -%}
    {%- endif -%}
    {{ return(dbt.dbt_spark_get_incremental_sql(strategy, source, target, existing, unique_key, incremental_predicates)) }}
{% endmacro %}
