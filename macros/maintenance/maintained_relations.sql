{#
    The Iceberg tables that maintenance operations apply to: every table,
    incremental or measurement model of this project that exists (raw chunks, catalog,
    measurement tables), plus run_statistics; or only the models
    named in `models` (a name or a list).
#}
{% macro maintained_relations(models=none) %}
    {%- if models is string -%}
        {%- set models = [models] -%}
    {%- endif -%}
    {%- set tables = [] -%}
    {%- for node in graph.nodes.values()
        if node.resource_type == 'model' and node.package_name == project_name
        and node.config.materialized in ('incremental', 'measurement', 'table')
        and (models is none or node.name in models) -%}
        {%- set relation = adapter.get_relation(database=node.database, schema=node.schema, identifier=node.alias) -%}
        {%- if relation is not none -%}
            {%- do tables.append(relation) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if models is none -%}
        {%- for relation in [tsdedup.run_statistics_relation()] -%}
            {%- if adapter.get_relation(database=relation.database, schema=relation.schema, identifier=relation.identifier) is not none -%}
                {%- do tables.append(relation) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(tables) }}
{% endmacro %}
