{#
    A view model's view, created or replaced in one Iceberg commit; the view
    materialization then sets the metastore's text of it (decision 0030). The
    view records the MD5 of its SQL (property tsdedup.sql_md5), by which the
    view materialization keeps an unchanged view.
#}
{% macro spark__create_view_as(relation, sql) -%}
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
