{#
    dbt-spark's incremental materialization, except for two write modes:
    `none` runs no statement (decision 0018); `files` commits the Parquet
    files the query names with one add_files (raw_chunks, decisions 0021,
    0025). docs/internals.md, "The write modes".
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
    {%- if tsdedup.write_mode_header() == '/* tsdedup write mode: files */'
        and not should_full_refresh() -%}
        {#- The model's query writes the new rows as data files of the run's own
            folder (raw_files_folder) and names them: one add_files commits
            them all, so a run that dies before leaves no row, only files no
            snapshot names (remove_orphan_files deletes them). -#}
        {%- set folder = tsdedup.raw_files_folder(this) -%}
        {%- if load_relation(this) is none -%}
            {{ tsdedup.create_raw_files_table(this, folder) }}
        {%- endif -%}
        {{ run_hooks(pre_hooks) }}
        {%- call statement('write_files', fetch_result=True) -%}
            {{ sql }}
        {%- endcall -%}
        {%- set written = load_result('write_files')['table'] -%}
        {{ log(this ~ ': ' ~ (written.rows | length) ~ ' data files written, '
            ~ (written.columns['rows'].values() | sum) ~ ' rows', info=false) }}
        {%- if written.rows | length > 0 -%}
            {{ tsdedup.add_raw_point_columns(this, written) }}
        {%- endif -%}
        {%- call statement('main') -%}
            call spark_catalog.system.add_files(
                table => {{ tsdedup.string_literal(this ~ '') }},
                source_table => {{ tsdedup.string_literal('`parquet`.`' ~ (folder | replace('`', '``')) ~ '`') }},
                check_duplicate_files => false
            )
        {%- endcall -%}
        {{ run_hooks(post_hooks) }}
        {{ return({'relations': [this]}) }}
    {%- endif -%}
    {{ return(dbt.materialization_incremental_spark()) }}
{% endmaterialization %}
