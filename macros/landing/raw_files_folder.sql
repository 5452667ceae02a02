{#
    Where this run writes the raw log's new data files itself (write mode
    `files`, python_udfs/raw_files.py): a folder of its own under the table's
    data folder, named by the dbt invocation. On the first run the table does
    not exist yet: its folder is where the table will be created, under its
    schema's location (the incremental materialization creates it, empty,
    before the files are written). None when that folder is not in a local
    folder (Spark writes the rows then), on a full refresh, when var
    `tsdedup_raw_write` is 'spark', or when Spark does not run in this process
    (`local` master): only there does a failed task fail the run, so the
    folder never holds the files of a task attempt that failed.
#}
{% macro raw_files_folder(relation) %}
    {%- if not execute or var('tsdedup_raw_write', 'files') != 'files' or should_full_refresh() -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set location = tsdedup.raw_table_location(relation) -%}
    {%- if location is none or not location.startswith('file:/') -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set master = run_query('set spark.master').columns[1].values()[0] -%}
    {%- if not master.startswith('local') -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(location ~ '/data/ingest-' ~ invocation_id) }}
{% endmacro %}
