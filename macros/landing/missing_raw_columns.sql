{#
    For raw_chunks' pre-hook: the column `flat_column` added to a raw log
    created before it existed, found from dbt's relation cache; empty, so no
    statement runs, when there is nothing to add. Decision 0025, "Migration".
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
