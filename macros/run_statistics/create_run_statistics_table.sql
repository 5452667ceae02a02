{#
    on-run-start: make sure the run statistics table exists, so that every run
    can append to it and reports can read it before the first measurement runs.
    One row per run, measurement table and day partition the run changed.
#}
{% macro create_run_statistics_table() %}
    {%- set relation = tsdedup.run_statistics_relation() -%}
    {%- set ddl -%}
create table if not exists {{ relation }} (
    invocation_id string comment 'The dbt invocation (run) that changed the partition',
    run_started_at timestamp comment 'When that run started (UTC)',
    model_name string comment 'The measurement model',
    measurement string comment 'The measurement it holds',
    partition_day date comment 'The day partition (NULL: a whole-table change without partition detail)',
    full_refresh boolean comment 'Whether the run rebuilt the table from all its chunks',
    snapshot_id bigint comment 'The Iceberg snapshot the run left the table at',
    chunks_merged int comment 'Chunks with points in this partition merged by the run',
    first_chunk_seq bigint comment 'First of those chunks',
    last_chunk_seq bigint comment 'Last of those chunks',
    points_merged bigint comment 'Accepted points of those chunks in this partition',
    rows_before bigint comment 'Rows of the partition before the run',
    rows_after bigint comment 'Rows of the partition after the run',
    duplicates_removed bigint comment 'rows_before + points_merged - rows_after',
    files_rewritten int comment 'Data files of the partition the run replaced',
    files_written int comment 'Data files the run wrote in the partition',
    seconds double comment 'Execution time of the model in the run (all its partitions)',
    recorded_at timestamp comment 'When the row was written'
)
using iceberg
partitioned by (days(run_started_at))
    {%- endset -%}
    {%- do tsdedup.create_table_if_missing(relation, ddl) -%}
    {{ return('') }}
{% endmacro %}
