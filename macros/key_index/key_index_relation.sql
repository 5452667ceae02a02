{# The key index table: schema of the target, name `key_index`. #}
{% macro key_index_relation() %}
    {{ return(api.Relation.create(schema=target.schema, identifier='key_index', type='table')) }}
{% endmacro %}
