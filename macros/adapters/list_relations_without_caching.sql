{#
    The relations of a schema for dbt's relation cache, from one
    `show table extended`. Iceberg tables in the Hive session catalog report
    `Provider: hive` there (the metastore's view of them), so dbt-spark would
    not know they are Iceberg: it would drop and recreate table models (readers
    could see no table) and refuse `merge`. The metastore's properties of such
    a table say `table_type=ICEBERG` (a view's say `ICEBERG-VIEW`), and Iceberg
    copies the table's own properties there on every commit; their information
    says `Provider: iceberg` here. dbt-spark's way round, `show tables` and a
    `describe extended` per relation, cost a statement per relation at every
    run's start. A schema that does not exist yet lists no relations.
#}
{% macro spark__list_relations_without_caching(relation) %}
    {% call statement('tsdedup_schema_exists', fetch_result=True) -%}
        show databases like {{ tsdedup.string_literal(relation.schema) }}
    {%- endcall %}
    {% if load_result('tsdedup_schema_exists').table | length == 0 %}
        {% do exceptions.raise_compiler_error('[SCHEMA_NOT_FOUND] ' ~ relation.schema) %}
    {% endif %}
    {% call statement('list_relations_without_caching', fetch_result=True) -%}
        show table extended in {{ tsdedup.quote_identifier(relation.schema) }} like '*'
    {%- endcall %}
    {%- set relations = [] -%}
    {%- for row in load_result('list_relations_without_caching').table -%}
        {%- set information = row[3] -%}
        {%- if not modules.re.search('(?m)^Type: VIEW$', information)
            and modules.re.search('[\\[ ]table_type=ICEBERG[,\\]]', information) -%}
            {%- set information = modules.re.sub('(?m)^Provider: hive$', 'Provider: iceberg', information) -%}
        {%- endif -%}
        {#- Without the schema tree, `docs generate` asks `describe` for the
            columns, as before: the tree names Spark's types (`long`, not `bigint`). -#}
        {%- set information = modules.re.sub('(?m)^Schema: root$(\\n [|].*)*\\n?', '', information) -%}
        {%- do relations.append([row[0], row[1], row[2], information]) -%}
    {%- endfor -%}
    {{ return(relations) }}
{% endmacro %}
