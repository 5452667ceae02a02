{#
    Views in the Iceberg session catalog are Iceberg views, and replacing one
    (`create or replace view`) leaves the SQL text that the Hive metastore keeps
    for it unchanged, while Spark reads the view through the metastore: the old
    query would keep running after its model changed (silently, or failing with
    INCOMPATIBLE_VIEW_SCHEMA_CHANGE when the columns changed). So an existing
    view is dropped before it is created again (docs/decisions/0007). The view
    records the MD5 of its SQL (property tsdedup.sql_md5), so the view
    materialization can keep a view whose SQL is unchanged.
#}
{% macro spark__create_view_as(relation, sql) -%}
    {%- if execute -%}
        {%- do run_query('drop view if exists ' ~ relation) -%}
    {%- endif -%}
    create or replace view {{ relation }}
    {%- if config.persist_column_docs() %}
    (
        {{ get_persist_docs_column_list(model.columns, get_columns_in_query(sql)) }}
    )
    {%- endif %}
    {{ comment_clause() }}
    {%- if config.get('contract').enforced %}
    {{ get_assert_columns_equivalent(sql) }}
    {%- endif %}
    tblproperties ('tsdedup.sql_md5' = '{{ local_md5(sql) }}')
    as
    {{ sql }}
{%- endmacro %}
