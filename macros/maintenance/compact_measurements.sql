{#
    Run-operation: rewrites the small data files of measurement tables into
    fewer, sorted ones, one day partition at a time in its sort key, and drops
    the rows a row-level merge marked deleted with their delete files. Rows do
    not change. Arguments: _maintenance__macros.yml; docs/operations.md,
    "Maintenance and time travel".
#}
{% macro compact_measurements(models=none, min_files=2, dry_run=false) %}
    {%- do tsdedup.validate_min_files('compact_measurements', min_files) -%}
    {%- set sort_keys = tsdedup.model_relation('sort_keys') -%}
    {%- set catalog = var('tsdedup_iceberg_catalog', 'spark_catalog') -%}
    {%- for table in tsdedup.measurement_relations(models) -%}
        {%- set candidates = run_query(
            'select cast(p.`partition`.time_day as string) as day, p.file_count, to_json(k.partition_key) as partition_key'
            ~ ' from ' ~ table.relation ~ '.partitions as p'
            ~ ' left join ' ~ sort_keys ~ ' as k on k.partition_day = p.`partition`.time_day'
            ~ ' and k.measurement = ' ~ tsdedup.string_literal(table.measurement)
            ~ ' where p.file_count >= ' ~ min_files ~ ' or p.position_delete_file_count > 0'
            ~ ' order by day'
        ).rows -%}
        {{ log("tsdedup: " ~ table.model ~ ": " ~ candidates | length ~ " day partition(s) with " ~ min_files ~ " or more files or with deleted rows", info=True) }}
        {%- set before = tsdedup.read_measurement_state(table.relation) -%}
        {%- set record_was_current = before['written_snapshot_id'] == before['snapshot_id'] -%}
        {%- for day, file_count, partition_key_json in candidates -%}
            {%- set order = [] -%}
            {%- for column in (fromjson(partition_key_json) if partition_key_json else ['time']) -%}
                {%- do order.append(('time_ns' if column == 'time' else tsdedup.quote_identifier(column)) ~ ' ASC NULLS FIRST') -%}
            {%- endfor -%}
            {%- if 'time_ns ASC NULLS FIRST' not in order -%}
                {%- do order.append('time_ns ASC NULLS FIRST') -%}
            {%- endif -%}
            {%- set next_day = (modules.datetime.date.fromisoformat(day) + modules.datetime.timedelta(days=1)).isoformat() -%}
            {%- set where = "time >= TIMESTAMP '" ~ day ~ " 00:00:00' AND time < TIMESTAMP '" ~ next_day ~ " 00:00:00'" -%}
            {%- set call -%}
call {{ catalog }}.system.rewrite_data_files(
    table => {{ tsdedup.string_literal(table.relation | string) }},
    strategy => 'sort',
    sort_order => {{ tsdedup.string_literal(order | join(', ')) }},
    where => {{ tsdedup.string_literal(where) }},
    options => map('rewrite-all', 'true')
)
            {%- endset -%}
            {%- if dry_run -%}
                {{ log("tsdedup: " ~ table.model ~ " " ~ day ~ ": would compact " ~ file_count ~ " files in order " ~ order | join(', '), info=True) }}
            {%- else -%}
                {%- set outcome = run_query(call).rows[0] -%}
                {{ log("tsdedup: " ~ table.model ~ " " ~ day ~ ": " ~ outcome[0] ~ " files rewritten into " ~ outcome[1], info=True) }}
            {%- endif -%}
        {%- endfor -%}
        {%- if candidates and not dry_run -%}
            {#- The delete files now point at rewritten data files only: rewriting
                them drops them (a position delete of a live file is kept). -#}
            {%- set outcome = run_query("call " ~ catalog ~ ".system.rewrite_position_delete_files(table => "
                ~ tsdedup.string_literal(table.relation | string) ~ ", options => map('rewrite-all', 'true'))").rows[0] -%}
            {{ log("tsdedup: " ~ table.model ~ ": " ~ outcome[0] ~ " delete files rewritten into " ~ outcome[1], info=True) }}
        {%- endif -%}
        {%- if candidates and not dry_run and record_was_current -%}
            {#- Compaction moves rows between files and leaves their series
                hashes as they were: the state record vouches for the
                compacted snapshot too (decision 0026). -#}
            {%- set after = tsdedup.read_measurement_state(table.relation) -%}
            {%- set record_sql = tsdedup.set_properties_if_changed(table.relation, after['properties'], {
                tsdedup.measurement_state_properties()['written_snapshot_id']: after['snapshot_id'],
            }) -%}
            {%- if record_sql -%}
                {%- do run_query(record_sql) -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
{% endmacro %}
