{# The run statistics table: schema of the target, name `run_statistics`. #}
{% macro run_statistics_relation() %}
    {{ return(api.Relation.create(schema=target.schema, identifier='run_statistics', type='table')) }}
{% endmacro %}
