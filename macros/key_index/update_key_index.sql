{#
    The statements that bring a measurement table's key index up to date after
    a run that merged the chunks (start, last] (the HashSet idea: know which
    keys a partition holds without reading it). A merge never removes a key,
    so when the index was current at the start (`index_current`), the keys of
    those chunks are added; otherwise the table's index is replaced by the
    keys of the table, in one commit (a static overwrite of the table's
    partitions: a crash leaves the old index or the new one, never none).
    New keys are read from the raw log's flat columns when every chunk has
    them (point_layout), else from the tag maps.
    Each table has its own index rows, also two tables of one measurement.
    Runs trust the index only once record_measurement_state has marked it
    current, so a crash in between costs a rebuild, never a wrong answer.
    `created`: this run created the table from the column catalog, so every
    catalogued tag is one of its columns. Returns a list of statements, maybe
    empty.
#}
{% macro update_key_index(relation, measurement_name, start, last, index_current, created=false) %}
    {%- set index = tsdedup.key_index_relation() -%}
    {%- set measurement = tsdedup.string_literal(measurement_name) -%}
    {%- set table_name = tsdedup.key_index_table_name(relation) -%}
    {%- if index_current and start == last -%}
        {{ return([]) }}
    {%- elif index_current -%}
        {#- Only the index partitions of the days the merged chunks touch are
            read: the rest of the index cannot hold their keys. -#}
        {%- set days = run_query(
            'select distinct cast(partition_day as string) from ' ~ tsdedup.model_relation('sort_key_catalog')
            ~ ' where measurement = ' ~ measurement ~ ' and chunk_seq > ' ~ start ~ ' and chunk_seq <= ' ~ last
        ).columns[0].values() | list -%}
        {%- if not days -%}
            {{ return([]) }}
        {%- endif -%}
        {%- set layout = tsdedup.point_layout(measurement_name, start) -%}
        {%- set sql -%}
insert into {{ index }}
select distinct
    {{ table_name }} as table_name,
    new_keys.partition_day,
    new_keys.key_hash
from (
    select
        to_date({{ tsdedup.time_from_ns('p.time_ns') }}) as partition_day,
        {{ tsdedup.point_key_hash(layout) }} as key_hash
    {{ tsdedup.point_rows(measurement_name, layout) | indent(4) }}
        and p.chunk_seq > {{ start }} and p.chunk_seq <= {{ last }}
) as new_keys
left anti join (
    select partition_day, key_hash
    from {{ index }}
    where
        table_name = {{ table_name }}
        and partition_day in (date'{{ days | join("', date'") }}')
) as known
    on
        known.partition_day = new_keys.partition_day
        and known.key_hash = new_keys.key_hash
        {%- endset -%}
        {{ return([sql]) }}
    {%- endif -%}
    {%- set columns = tsdedup.measurement_columns(measurement_name) -%}
    {%- if created -%}
        {%- set tags = columns['tags'] -%}
    {%- else -%}
        {%- set stored = adapter.get_columns_in_relation(relation) | map(attribute='name') | list -%}
        {%- set tags = columns['tags'] | select('in', stored) | list -%}
    {%- endif -%}
    {#- A table holds one row per key, so its hashes need no `distinct` (a
        collision repeats a hash, which a semi join reads as one). -#}
    {%- set fill -%}
insert overwrite {{ index }} partition (table_name = {{ table_name }})
select
    to_date(`time`) as partition_day,
    {{ tsdedup.key_hash(tag_columns=tags) }} as key_hash
from {{ relation }}
    {%- endset -%}
    {#- The table's rows come day by day, so each task writes the days it
        reads, with no exchange to distribute them (the index is created with
        `write.distribution-mode` none). Static: every partition of the table
        is replaced, also a day it no longer has. The measurement
        materialization overwrites in dynamic mode, so the mode is set back
        after. -#}
    {%- set mode = 'set spark.sql.sources.partitionOverwriteMode = ' -%}
    {{ return([mode ~ 'STATIC', fill, mode ~ 'DYNAMIC']) }}
{% endmacro %}
