{#
    Iceberg tables in the Hive session catalog report `Provider: hive` in
    `show table extended`, so dbt-spark would not know they are Iceberg: it would
    drop and recreate table models (readers could see no table) and refuse
    `merge`. Raising the v2-table message below makes dbt-spark fall back to
    `show tables` plus `describe extended` per table, which reports
    `Provider: iceberg`. A schema that does not exist yet lists no relations.
#}
{% macro spark__list_relations_without_caching(relation) %}
    {% call statement('tsdedup_schema_exists', fetch_result=True) -%}
        show databases like {{ tsdedup.string_literal(relation.schema) }}
    {%- endcall %}
    {% if load_result('tsdedup_schema_exists').table | length == 0 %}
        {% do exceptions.raise_compiler_error('[SCHEMA_NOT_FOUND] ' ~ relation.schema) %}
    {% endif %}
    {% do exceptions.raise_compiler_error(
        'SHOW TABLE EXTENDED is not supported for v2 tables (tsdedup lists Iceberg tables with describe)'
    ) %}
{% endmacro %}
