{#
    For raw_chunks' pre-hook: the column `flat_column` (decision 0025) added
    to a raw log created before it existed. Such a log lacks the table
    property `tsdedup.flat_columns` in dbt's relation cache, and is described
    once; the next pre-hook (missing_table_properties) sets the property.
    Empty, so no statement runs, for a log that has the property or the
    column, or does not exist yet.
#}
{% macro missing_raw_columns() %}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- set existing = adapter.get_relation(this.database, this.schema, this.identifier) -%}
    {%- if existing is none or 'tsdedup.flat_columns=true' in (existing.information or '') -%}
        {{ return('') }}
    {%- endif -%}
    {%- for column in adapter.get_columns_in_relation(existing) if column.name | lower == 'flat_column' -%}
        {{ return('') }}
    {%- endfor -%}
    {{ return('alter table ' ~ this ~ ' add columns (flat_column string)') }}
{% endmacro %}
