{#
    dbt's is_incremental(), also true for measurement models (materialization
    `measurement`) whose table exists and is not being fully refreshed. Every
    other model gets dbt's answer.
#}
{% macro is_incremental() %}
    {%- if not execute -%}
        {{ return(false) }}
    {%- elif model.config.materialized != 'measurement' -%}
        {{ return(dbt.is_incremental()) }}
    {%- endif -%}
    {%- set relation = adapter.get_relation(this.database, this.schema, this.table) -%}
    {{ return(relation is not none and relation.type == 'table' and not should_full_refresh()) }}
{% endmacro %}
