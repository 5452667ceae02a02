{#
    dbt-spark's view materialization, except that a view whose SQL has not
    changed since it was created is kept: creating it again drops it and
    writes the metastore twice (decision 0007). A view whose SQL selects `*`
    is always created again, as its columns follow its sources' (a source
    that gained a column would otherwise stay hidden), and so is every view
    of a --full-refresh.
#}
{% materialization view, adapter='spark' -%}
    {%- set existing = adapter.get_relation(database=database, schema=schema, identifier=model['alias']) -%}
    {%- if should_full_refresh() or not tsdedup.view_is_current(existing, sql) -%}
        {{ return(create_or_replace_view()) }}
    {%- endif -%}
    {{ run_hooks(pre_hooks) }}
    {%- call noop_statement('main', 'OK (unchanged)') -%}
        {{ sql }}
    {%- endcall -%}
    {{ run_hooks(post_hooks) }}
    {{ return({'relations': [existing]}) }}
{%- endmaterialization %}
