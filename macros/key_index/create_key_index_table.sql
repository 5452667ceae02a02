{#
    on-run-start: make sure the key index exists (see update_key_index). One row
    per measurement, day partition and key: a 64-bit hash of the series (the
    sorted tag entries) and time_ns.
#}
{% macro create_key_index_table() %}
    {%- set relation = tsdedup.key_index_relation() -%}
    {%- do run_query('create schema if not exists ' ~ relation.schema) -%}
    {%- set ddl -%}
create table if not exists {{ relation }} (
    measurement string comment 'The measurement',
    partition_day date comment 'The day partition of the measurement table',
    key_hash bigint comment 'xxhash64 of the sorted tag entries and time_ns'
)
using iceberg
partitioned by (measurement, partition_day)
tblproperties ('write.distribution-mode' = 'none')
    {%- endset -%}
    {%- do run_query(ddl) -%}
    {{ return('') }}
{% endmacro %}
