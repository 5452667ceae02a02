{#
    dbt-spark's view materialization, except that a view whose SQL has not
    changed since it was created is kept (view_is_current); a view that
    selects `*`, and every view of a --full-refresh, is replaced. The
    metastore's text of the view is then set to its SQL (decision 0030).
#}
{% materialization view, adapter='spark' -%}
    {%- set existing = adapter.get_relation(database=database, schema=schema, identifier=model['alias']) -%}
    {%- if should_full_refresh() or not tsdedup.view_is_current(existing, sql) -%}
        {%- set created = create_or_replace_view() -%}
        {%- do adapter.tsdedup_set_view_text(this, sql) -%}
        {{ return(created) }}
    {%- endif -%}
    {{ run_hooks(pre_hooks) }}
    {%- call noop_statement('main', 'OK (unchanged)') -%}
        {{ sql }}
    {%- endcall -%}
    {{ run_hooks(post_hooks) }}
    {{ return({'relations': [existing]}) }}
{%- endmaterialization %}
