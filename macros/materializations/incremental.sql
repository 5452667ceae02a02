{#
    dbt-spark's incremental materialization, except that a model whose compiled
    SQL starts with `/* tsdedup write mode: none */` (it knows from metadata
    that nothing new has come: no new file, no chunk after the last one it
    holds) runs no statement: no temporary view, no schema check, no empty
    insert, which is an Iceberg commit of its own.
#}
{% materialization incremental, adapter='spark', supported_languages=['sql', 'python'] %}
    {%- if tsdedup.write_mode_header() == '/* tsdedup write mode: none */'
        and not should_full_refresh() and load_relation(this) is not none -%}
        {{ run_hooks(pre_hooks) }}
        {%- call noop_statement('main', 'OK (nothing new)') -%}
            -- {{ this }}: nothing to write
        {%- endcall -%}
        {{ run_hooks(post_hooks) }}
        {{ return({'relations': [this]}) }}
    {%- endif -%}
    {{ return(dbt.materialization_incremental_spark()) }}
{% endmaterialization %}
