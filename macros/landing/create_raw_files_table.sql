{#
    The first run of a model in write mode `files` (raw_chunks): its empty
    table, from the data types of the model's YAML, whose folder must hold the
    run's files (raw_files_folder); a clear error, before any file is written,
    when it does not. Decision 0021, "The first run writes files too".
#}
{% macro create_raw_files_table(relation, folder) %}
    {%- set untyped = [] -%}
    {%- for column in model['columns'].values() if not column.get('data_type') -%}
        {%- do untyped.append(column['name']) -%}
    {%- endfor -%}
    {%- if not model['columns'] or untyped -%}
        {% do exceptions.raise_compiler_error(relation ~ ": write mode `files` creates the table from the data_type of every column in the model's YAML; missing for: " ~ (untyped | join(', ') or 'every column')) %}
    {%- endif -%}
    {%- call statement('create_table') -%}
        create table {{ relation }}
        {{ get_table_columns_and_constraints() }}
        {{ file_format_clause() }}
        {{ tblproperties_clause() }}
        {{ partition_cols(label="partitioned by") }}
    {%- endcall -%}
    {%- do adapter.cache_added(relation.incorporate(type='table')) -%}
    {%- set described = run_query('describe table extended ' ~ relation) -%}
    {%- set location = namespace(value='(unknown)') -%}
    {%- for row in described.rows if row[0] == 'Location' and row[1] -%}
        {%- set location.value = row[1] -%}
    {%- endfor -%}
    {%- set location = location.value -%}
    {%- if not folder.startswith(location.rstrip('/') ~ '/') -%}
        {% do exceptions.raise_compiler_error(relation ~ ": created at " ~ location ~ ", not where this run writes its files (" ~ folder ~ "); run again (the table exists now), or set var tsdedup_raw_write: spark") %}
    {%- endif -%}
{% endmacro %}
