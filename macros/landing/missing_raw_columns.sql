{#
    For raw_chunks' pre-hook: what a raw log created before `flat_column`
    (decision 0025) or before its day partitions (decision 0034) lacks, added;
    found from dbt's relation cache, so a log with both table properties is not
    described. Runs `alter table ... add columns` itself when a column is
    missing and returns the `add partition field` still needed, or empty.
#}
{% macro missing_raw_columns() %}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- set existing = adapter.get_relation(this.database, this.schema, this.identifier) -%}
    {%- set information = existing.information or '' if existing is not none else '' -%}
    {%- if existing is none or ('tsdedup.flat_columns=true' in information
        and 'tsdedup.day_partitions=true' in information) -%}
        {{ return('') }}
    {%- endif -%}
    {%- set wanted = {'flat_column': 'string', 'partition_day': 'date'} -%}
    {%- for column in adapter.get_columns_in_relation(existing) if column.name | lower in wanted -%}
        {%- do wanted.pop(column.name | lower) -%}
    {%- endfor -%}
    {%- if wanted -%}
        {%- set added = [] -%}
        {%- for name, data_type in wanted | dictsort -%}
            {%- do added.append(name ~ ' ' ~ data_type) -%}
        {%- endfor -%}
        {%- do run_query('alter table ' ~ this ~ ' add columns (' ~ added | join(', ') ~ ')') -%}
    {%- endif -%}
    {#- `describe table` lists the partition columns after its line
        `# Partition Information`. -#}
    {%- set partitioned = namespace(by_day=false, section=false) -%}
    {%- for row in run_query('describe table ' ~ this).rows -%}
        {%- if row[0] == '# Partition Information' -%}
            {%- set partitioned.section = true -%}
        {%- elif partitioned.section and row[0] == 'partition_day' -%}
            {%- set partitioned.by_day = true -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return('' if partitioned.by_day else 'alter table ' ~ this ~ ' add partition field partition_day') }}
{% endmacro %}
