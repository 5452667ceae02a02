{#
    The measurement tables of this project that exist: a list of
    {'model': name, 'relation': relation, 'measurement': name} for every model
    whose table has the `tsdedup.measurement` property, optionally limited to the
    model names in `models`.
#}
{% macro measurement_relations(models=none) %}
    {%- if models is string -%}
        {%- set models = [models] -%}
    {%- endif -%}
    {%- set found = [] -%}
    {%- for node in graph.nodes.values()
        if node.resource_type == 'model' and node.package_name == project_name
        and node.config.materialized == 'measurement'
        and (models is none or node.name in models) -%}
        {%- set relation = adapter.get_relation(database=node.database, schema=node.schema, identifier=node.alias) -%}
        {%- set state = tsdedup.read_measurement_state(relation) -%}
        {%- if state['measurement'] is not none -%}
            {%- do found.append({'model': node.name, 'relation': relation, 'measurement': state['measurement']}) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if models is not none -%}
        {%- set names = found | map(attribute='model') | list -%}
        {%- for name in models if name not in names -%}
            {% do exceptions.raise_compiler_error("tsdedup: " ~ name ~ " is not a built measurement model of this project") %}
        {%- endfor -%}
    {%- endif -%}
    {{ return(found) }}
{% endmacro %}
