{#
    on-run-start (and retract_chunks): make sure the retraction register exists.
    One row per retracted chunk; its points stay in the raw log for audit, and
    stg_points and stg_columns leave them out.
#}
{% macro create_retracted_chunks_table() %}
    {%- set relation = tsdedup.retracted_chunks_relation() -%}
    {%- set ddl -%}
create table if not exists {{ relation }} (
    retraction_seq bigint comment 'Order of the retraction: measurement tables rebuild what each new one touched',
    chunk_seq bigint comment 'The retracted chunk',
    source_file string comment 'Its file',
    retracted_at timestamp comment 'When it was retracted'
)
using iceberg
    {%- endset -%}
    {%- do tsdedup.create_table_if_missing(relation, ddl) -%}
    {{ return('') }}
{% endmacro %}
