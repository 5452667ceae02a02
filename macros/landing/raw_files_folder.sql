{#
    Where this run writes the raw log's new data files itself (write mode
    `files`, python_udfs/raw_files.py): a folder of its own under the table's
    data folder, named by the dbt invocation. None when the table does not
    exist yet, is not in a local folder (Spark writes it then), or var
    `tsdedup_raw_write` is 'spark', or Spark does not run in this process
    (`local` master): only there does a failed task fail the run, so the
    folder never holds the files of a task attempt that failed.
#}
{% macro raw_files_folder(relation) %}
    {%- if not execute or var('tsdedup_raw_write', 'files') != 'files' -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set existing = adapter.get_relation(relation.database, relation.schema, relation.identifier) -%}
    {%- if existing is none or not existing.information -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set found = modules.re.search('(?m)^Location: (file:/.*\\S)\\s*$', existing.information) -%}
    {%- if not found -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set master = run_query('set spark.master').columns[1].values()[0] -%}
    {%- if not master.startswith('local') -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(found.group(1) ~ '/data/ingest-' ~ invocation_id) }}
{% endmacro %}
