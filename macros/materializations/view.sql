{#
    dbt-spark's view materialization, except that a view whose SQL has not
    changed since it was created is kept (view_is_current); a view that
    selects `*`, and every view of a --full-refresh, is created again.
    Decision 0007; docs/operations.md, "A run with nothing to do".
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
