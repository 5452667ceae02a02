{# The retraction register: schema of the target, name `retracted_chunks`. #}
{% macro retracted_chunks_relation() %}
    {{ return(api.Relation.create(schema=target.schema, identifier='retracted_chunks', type='table')) }}
{% endmacro %}
