{#
    Measurement post-hook, after the data commit and the watermark: bring the
    key index of the measurement up to date (the HashSet idea: know which keys a
    partition holds without reading it).

    A merge never removes a key, so when the index was current at the start of
    the run (table property `tsdedup.key_index_chunk_seq` equal to the watermark
    the run started from), adding the keys of the chunks the run merged is
    enough. Otherwise (first build, full refresh, or a run that died between its
    data commit and its index update) the measurement's index is rebuilt from
    the table: step 'clear' deletes it (whole partitions of the index, a
    metadata operation), step 'fill' writes every key of the table. Until
    record_key_index marks the index current, runs do not trust it, so a crash
    anywhere in between costs a rebuild, never a wrong answer.

    Two hooks, one statement each: `update_key_index(this, 'clear')` (nothing to
    do when the index is current), then `update_key_index(this, 'fill')`.
#}
{% macro update_key_index(relation, step) %}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- set properties = tsdedup.table_properties(relation) -%}
    {%- set measurement_name = properties['tsdedup.measurement'] -%}
    {%- set previous_chunk = properties.get('tsdedup.previous_chunk_seq', '0') | int -%}
    {%- set last_chunk = properties.get('tsdedup.last_chunk_seq', '0') | int -%}
    {%- set index = tsdedup.key_index_relation() -%}
    {%- set current = previous_chunk > 0
        and properties.get('tsdedup.key_index_chunk_seq', '') == previous_chunk | string -%}
    {%- if step == 'clear' -%}
        {{ return('' if current else 'delete from ' ~ index ~ ' where measurement = ' ~ tsdedup.string_literal(measurement_name)) }}
    {%- elif step != 'fill' -%}
        {% do exceptions.raise_compiler_error("tsdedup.update_key_index: step must be 'clear' or 'fill', got " ~ step) %}
    {%- endif -%}
    {%- if current and previous_chunk == last_chunk -%}
        {{ return('') }}
    {%- elif current -%}
        {#- Only the index partitions of the days the merged chunks touch are
            read: the rest of the index cannot hold their keys. -#}
        {%- set days = run_query(
            'select distinct cast(partition_day as string) from ' ~ tsdedup.model_relation('sort_key_catalog')
            ~ ' where measurement = ' ~ tsdedup.string_literal(measurement_name)
            ~ ' and chunk_seq > ' ~ previous_chunk ~ ' and chunk_seq <= ' ~ last_chunk
        ).columns[0].values() | list -%}
        {%- if not days -%}
            {{ return('') }}
        {%- endif -%}
        {%- set sql -%}
insert into {{ index }}
select distinct
    new_keys.measurement,
    new_keys.partition_day,
    new_keys.key_hash
from (
    select
        measurement,
        to_date({{ tsdedup.time_from_ns('time_ns') }}) as partition_day,
        {{ tsdedup.key_hash(tags_map='tags') }} as key_hash
    from {{ tsdedup.model_relation('stg_points') }}
    where
        measurement = {{ tsdedup.string_literal(measurement_name) }}
        and chunk_seq > {{ previous_chunk }} and chunk_seq <= {{ last_chunk }}
) as new_keys
left anti join (
    select partition_day, key_hash
    from {{ index }}
    where
        measurement = {{ tsdedup.string_literal(measurement_name) }}
        and partition_day in (date'{{ days | join("', date'") }}')
) as known
    on
        known.partition_day = new_keys.partition_day
        and known.key_hash = new_keys.key_hash
        {%- endset -%}
    {%- else -%}
        {%- set columns = tsdedup.measurement_columns(measurement_name) -%}
        {%- set stored = adapter.get_columns_in_relation(relation) | map(attribute='name') | list -%}
        {%- set sql -%}
insert into {{ index }}
select distinct
    {{ tsdedup.string_literal(measurement_name) }} as measurement,
    to_date(`time`) as partition_day,
    {{ tsdedup.key_hash(tag_columns=columns['tags'] | select('in', stored) | list) }} as key_hash
from {{ relation }}
        {%- endset -%}
    {%- endif -%}
    {{ return(sql) }}
{% endmacro %}
