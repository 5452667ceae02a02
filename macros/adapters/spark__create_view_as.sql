{#
    Views in the Iceberg session catalog are Iceberg views, and replacing one
    (`create or replace view`) leaves the SQL text that the Hive metastore keeps
    for it unchanged, while Spark reads the view through the metastore: the old
    query would keep running after its model changed (silently, or failing with
    INCOMPATIBLE_VIEW_SCHEMA_CHANGE when the columns changed). So an existing
    view is dropped before it is created again (docs/decisions/0007).
#}
{% macro spark__create_view_as(relation, sql) -%}
    {%- if execute -%}
        {%- do run_query('drop view if exists ' ~ relation) -%}
    {%- endif -%}
    {{ dbt.spark__create_view_as(relation, sql) }}
{%- endmacro %}
