{#
    A view model's view. An existing view is dropped first: replacing an
    Iceberg view leaves the SQL text the metastore keeps for it unchanged. The
    view records the MD5 of its SQL (property tsdedup.sql_md5), by which the
    view materialization keeps an unchanged view. Decision 0007.
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
