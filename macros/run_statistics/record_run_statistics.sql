{#
    on-run-end: one row per measurement table and day partition the run changed,
    appended to run_statistics (the run's log line, as a table).

    Everything comes from metadata, nothing scans a table: the snapshots the
    run committed (Iceberg writes per-partition counts into each snapshot's
    summary, `write.summary.partition-limit`), the partition row counts before
    and after them (`partitions` metadata table, time travelled), and the chunk
    catalog's point counts of the chunks the run merged (between the table
    properties `tsdedup.previous_chunk_seq` and `tsdedup.last_chunk_seq`).
#}
{% macro record_run_statistics(results) %}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- set selects = [] -%}
    {%- for result in results
        if result.node.resource_type == 'model'
        and result.status == 'success'
        and result.node.config.materialized == 'measurement' -%}
        {%- set relation = adapter.get_relation(
            database=result.node.database,
            schema=result.node.schema,
            identifier=result.node.alias,
        ) -%}
        {%- set state = tsdedup.read_measurement_state(relation) -%}
        {%- if state['measurement'] is not none -%}
            {%- set select = tsdedup.run_statistics_rows(relation, result, state) -%}
            {%- if select -%}
                {%- do selects.append(select) -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if not selects -%}
        {{ return('') }}
    {%- endif -%}
    {{ return('insert into ' ~ tsdedup.run_statistics_relation() ~ '\n' ~ selects | join('\nunion all\n')) }}
{% endmacro %}
