{#
    The materialization of measurement tables (`materialized='measurement'`):
    `rebuild` is one `create or replace table ... as select`, `none` writes
    nothing, the other modes go through measurement_write_sql; then
    record_measurement_state. docs/internals.md, "The write modes".
#}
{% materialization measurement, adapter='spark', supported_languages=['sql'] %}
    {%- set file_format = config.get('file_format', 'iceberg') -%}
    {%- if file_format != 'iceberg' -%}
        {% do exceptions.raise_compiler_error("the measurement materialization writes Iceberg tables; "
            ~ this ~ " is configured with file_format '" ~ file_format ~ "'") %}
    {%- endif -%}
    {%- set target_relation = this -%}
    {%- set existing_relation = load_relation(this) -%}
    {%- set full_refresh = should_full_refresh() -%}
    {%- set meta = config.get('meta') or {} -%}
    {%- if 'tsdedup_measurement' not in meta -%}
        {% do exceptions.raise_compiler_error("the measurement materialization builds models whose SQL is tsdedup.measurement(...); "
            ~ this ~ " is not one (its meta has no tsdedup_measurement)") %}
    {%- endif -%}
    {%- set tmp_relation = this.incorporate(path={'identifier': this.identifier ~ '__dbt_tmp'})
        .include(database=false, schema=false) -%}

    {#- An overwrite replaces the day partitions it writes, not the whole table. -#}
    {%- do tsdedup.set_spark_setting('spark.sql.sources.partitionOverwriteMode', 'DYNAMIC') -%}

    {{ run_hooks(pre_hooks) }}

    {%- if existing_relation is not none and not existing_relation.is_iceberg -%}
        {#- A view or a table of another format cannot be replaced in one commit. -#}
        {% do adapter.drop_relation(existing_relation) %}
        {%- set existing_relation = none -%}
    {%- endif -%}

    {%- set header = tsdedup.write_mode_header() -%}
    {#- The plan's other messages: whole comment lines at the top of the SQL. -#}
    {%- set comments = tsdedup.leading_comment_lines(sql) -%}
    {%- set record_current = header == '/* tsdedup write mode: none; state record current */' -%}
    {%- set wrote = true -%}
    {%- set rebuild = existing_relation is none or full_refresh or header == '/* tsdedup write mode: rebuild */' -%}
    {#- Whether the table is at the snapshot its state record names before this
        run writes: if not, someone else wrote it, and its series hashes are
        checked after the run (record_measurement_state). -#}
    {%- set vouched = true -%}
    {%- if not rebuild and not record_current -%}
        {%- set before = tsdedup.read_measurement_state(existing_relation) -%}
        {%- set vouched = before['written_snapshot_id'] == before['snapshot_id'] -%}
    {%- endif -%}
    {%- if rebuild -%}
        {#- A rebuild that reads the raw log's day partitions in place has Spark
            group the scan by partition, for this statement only (decision 0034). -#}
        {%- set grouped = {} -%}
        {%- if tsdedup.day_grouped_comment() in comments -%}
            {%- for key in tsdedup.day_grouped_settings() -%}
                {%- do grouped.update({key: tsdedup.spark_setting(key) or 'false'}) -%}
                {%- do tsdedup.set_spark_setting(key, 'true') -%}
            {%- endfor -%}
        {%- endif -%}
        {%- call statement('main') -%}
            {{ create_table_as(false, target_relation, sql) }}
        {%- endcall -%}
        {%- for key, value in grouped | dictsort -%}
            {%- do tsdedup.set_spark_setting(key, value) -%}
        {%- endfor -%}
    {%- elif record_current or header == '/* tsdedup write mode: none */' -%}
        {#- No new point and no new column: the table stays as it is. -#}
        {%- set wrote = false -%}
        {%- call noop_statement('main', 'OK (nothing new)') -%}
            -- {{ target_relation }}: nothing to write (no new point, no new column)
        {%- endcall -%}
    {%- else -%}
        {#- When the plan found every column the model writes in the table, and
            new columns would only be added (or ignored), dbt's schema change
            step would change nothing: the write reads the model's query
            itself. Else it reads a temporary view of it, after that step. -#}
        {%- set on_schema_change = config.get('on_schema_change', 'append_new_columns') -%}
        {%- if tsdedup.stored_columns_comment() in comments and on_schema_change in ['append_new_columns', 'ignore'] -%}
            {%- set source = '(\n' ~ sql.strip() ~ '\n)' -%}
        {%- else -%}
            {%- call statement('create_tmp_relation') -%}
                {{ create_table_as(true, tmp_relation, sql) }}
            {%- endcall -%}
            {%- do process_schema_changes(on_schema_change, tmp_relation, existing_relation) -%}
            {%- set source = tmp_relation -%}
        {%- endif -%}
        {#- A row-level merge runs with one shuffle partition per core (decision 0033). -#}
        {%- set partitions = tsdedup.merge_shuffle_partitions() if tsdedup.is_row_level_write(header) else none -%}
        {%- if partitions is not none -%}
            {%- do tsdedup.set_spark_setting('spark.sql.shuffle.partitions', partitions['merge']) -%}
        {%- endif -%}
        {%- call statement('main') -%}
            {{ tsdedup.measurement_write_sql(source, target_relation, existing_relation, before) }}
        {%- endcall -%}
        {%- if partitions is not none -%}
            {%- do tsdedup.set_spark_setting('spark.sql.shuffle.partitions', partitions['session']) -%}
        {%- endif -%}
    {%- endif -%}
    {#- Whether the new points shared keys with stored rows: the plan's key
        check says so, or else a row-level merge's commit (the stored rows it
        replaced); other writes leave the record's answer (decision 0038). -#}
    {%- set keys_shared = none -%}
    {%- if rebuild -%}
        {%- set keys_shared = true -%}
    {%- elif tsdedup.key_check_comment(false) in comments -%}
        {%- set keys_shared = false -%}
    {%- elif tsdedup.key_check_comment(true) in comments -%}
        {%- set keys_shared = true -%}
    {%- elif wrote and header.startswith('/* tsdedup write mode: merge,') -%}
        {%- set summary = adapter.tsdedup_snapshot_summary(target_relation) -%}
        {%- set replaced = namespace(rows=0) -%}
        {%- for key in ['added-position-deletes', 'added-equality-deletes', 'deleted-records'] -%}
            {%- set replaced.rows = replaced.rows + (summary.get(key) or 0) | int -%}
        {%- endfor -%}
        {%- set keys_shared = replaced.rows > 0 -%}
    {%- endif -%}
    {%- if record_current and not rebuild -%}
        {{ log("tsdedup: " ~ target_relation ~ ": nothing written; its state record is current") }}
    {%- else -%}
        {{ log("tsdedup: " ~ target_relation ~ ": " ~ ("data committed" if wrote else "nothing written") ~ "; recording its state") }}
        {%- do tsdedup.record_measurement_state(target_relation, meta['tsdedup_measurement'],
            meta.get('tsdedup_dedup_mode', 'fields'), rebuild, wrote, vouched,
            tsdedup.planned_log_heads(), keys_shared) -%}
    {%- endif -%}

    {%- set should_revoke = should_revoke(existing_relation, full_refresh_mode=full_refresh) -%}
    {%- do apply_grants(target_relation, config.get('grants'), should_revoke) -%}
    {%- do persist_docs(target_relation, model) -%}

    {{ run_hooks(post_hooks) }}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
