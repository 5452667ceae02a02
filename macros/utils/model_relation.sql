{#
    The relation of a model of this project by name, where ref() is not
    available (on-run-start/end hooks, run-operations).
#}
{% macro model_relation(model_name) %}
    {%- for node in graph.nodes.values()
        if node.resource_type == 'model' and node.package_name == project_name and node.name == model_name -%}
        {{ return(api.Relation.create(database=node.database, schema=node.schema, identifier=node.alias, type='table')) }}
    {%- endfor -%}
    {% do exceptions.raise_compiler_error("tsdedup: no model named " ~ model_name ~ " in project " ~ project_name) %}
{% endmacro %}
