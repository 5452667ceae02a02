{#
    Tables written before series hashes (decision 0026) had their keys in a
    table of their own, `key_index`; the first of them rebuilt drops it.
#}
{% macro drop_retired_key_index() %}
    {%- set relation = api.Relation.create(schema=target.schema, identifier='key_index', type='table') -%}
    {%- do run_query('drop table if exists ' ~ relation ~ ' purge') -%}
{% endmacro %}
