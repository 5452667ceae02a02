{#
    Where a run of `raw_chunks` writes the raw log's new data files itself
    (write mode `files`, python_udfs/raw_files.py), or None when Spark writes
    the rows. The folder and the cases: _landing__macros.yml; why Spark writes
    on a cluster: decision 0021.
#}
{% macro raw_files_folder(relation) %}
    {%- if not execute or var('tsdedup_raw_write', 'files') != 'files' or should_full_refresh() -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set location = tsdedup.raw_table_location(relation) -%}
    {%- if location is none or not location.startswith('file:/') -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set master = tsdedup.spark_setting('spark.master') -%}
    {%- if not master.startswith('local') -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(location ~ '/data/ingest-' ~ invocation_id) }}
{% endmacro %}
