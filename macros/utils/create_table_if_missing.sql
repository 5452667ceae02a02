{#
    Create `relation` with `ddl` (a `create table if not exists` statement),
    and its schema, unless dbt's relation cache already lists it: a run whose
    tables exist asks Spark nothing here.
#}
{% macro create_table_if_missing(relation, ddl) %}
    {%- set cached = adapter.get_relation(
        database=relation.database, schema=relation.schema, identifier=relation.identifier) -%}
    {%- if cached is none -%}
        {%- do run_query('create schema if not exists ' ~ relation.schema) -%}
        {%- do run_query(ddl) -%}
    {%- endif -%}
{% endmacro %}
