{#
    on-run-start: make sure the key index exists (see update_key_index). One row
    per measurement table, day partition and key: a 64-bit hash of the series
    (the sorted tag entries) and time_ns. An index of the earlier layout, one
    per measurement (two tables of one measurement shared it), is dropped and
    created anew: the state records that vouched for it name other properties
    (measurement_state_properties), so every table fills its keys again on its
    next run.
#}
{% macro create_key_index_table() %}
    {%- set relation = tsdedup.key_index_relation() -%}
    {%- do run_query('create schema if not exists ' ~ relation.schema) -%}
    {#- The earlier layout is told by its columns, read only when the relation
        cache does not show the property of this one: an index of this layout
        is never dropped, as its state records trust it. -#}
    {%- set existing = adapter.get_relation(relation.database, relation.schema, relation.identifier) if execute else none -%}
    {%- if existing is not none and 'tsdedup.keyed_by=table' not in (existing.information or '') -%}
        {%- set names = adapter.get_columns_in_relation(existing) | map(attribute='name') | list -%}
        {%- if 'measurement' in names and 'table_name' not in names -%}
            {{ log("tsdedup: " ~ relation ~ " is keyed by measurement (an earlier layout): dropping it; each measurement table fills its keys again on its next run", info=True) }}
            {%- do run_query('drop table ' ~ relation) -%}
        {%- endif -%}
    {%- endif -%}
    {%- set ddl -%}
create table if not exists {{ relation }} (
    table_name string comment 'The measurement table (schema.table)',
    partition_day date comment 'The day partition of the measurement table',
    key_hash bigint comment 'xxhash64 of the sorted tag entries and time_ns'
)
using iceberg
partitioned by (table_name, partition_day)
tblproperties ('write.distribution-mode' = 'none', 'tsdedup.keyed_by' = 'table')
    {%- endset -%}
    {%- do run_query(ddl) -%}
    {{ return('') }}
{% endmacro %}
