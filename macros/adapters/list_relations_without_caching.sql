{#
    The relations of a schema for dbt's relation cache, from one
    `show table extended`; an Iceberg table, which reports `Provider: hive`
    there, gets `Provider: iceberg` from its metastore properties. A schema
    that does not exist yet lists no relations. Decision 0022.
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
