{#
    The end of every measurement run, after its data commit (or none): put
    right the series hashes of a table someone else wrote, then write the
    state record in one `alter table`, only if a value changed (decisions
    0020, 0026; _measurements__macros.yml).
#}
{% macro record_measurement_state(relation, measurement_name, dedup_mode, full_refresh, wrote, vouched=true, heads=none, keys_shared=none) %}
    {#- Planned heads bound what the run read (chunk_seq <= the head): the
        table holds no chunk after its watermark while every write since its
        last rebuild was bounded, and nobody else wrote it (decision 0036). -#}
    {%- set bounded = heads is not none -%}
    {%- if not vouched and not full_refresh -%}
        {%- set stored = adapter.get_columns_in_relation(relation) | map(attribute='name') | list -%}
        {%- set tags = tsdedup.measurement_columns(measurement_name)['tags'] | select('in', stored) | list -%}
        {%- set hash = tsdedup.series_hash(tags) -%}
        {%- call statement('repair_series_hashes') -%}
            update {{ relation }}
            set series_hash = {{ hash }}
            where not series_hash <=> {{ hash }}
        {%- endcall -%}
    {%- endif -%}
    {%- set state = tsdedup.read_measurement_state(relation) -%}
    {%- set start = 0 if full_refresh else (state['watermark'] or 0) -%}
    {#- The heads the run planned with: its source read every chunk after the
        watermark it planned from, so the record never claims a chunk it did not
        read (one the run's lock keeps from landing meanwhile). -#}
    {%- set heads = heads if heads is not none else tsdedup.log_heads() -%}
    {%- set bounded = bounded and (full_refresh or (state['chunks_bounded'] and vouched)) -%}
    {%- set last = heads['chunk_seq'] -%}
    {%- set record = {
        'measurement': measurement_name,
        'dedup_mode': dedup_mode,
        'watermark': last,
        'previous_watermark': start if wrote or last != start else state['previous_watermark'],
        'retraction_seq': heads['retraction_seq'],
        'series_hash_column': 'series_hash',
        'written_snapshot_id': state['snapshot_id'],
        'chunks_bounded': 'true' if bounded else 'false',
        'keys_shared': 'true' if (state['keys_shared'] if keys_shared is none else keys_shared) else 'false',
    } -%}
    {%- set wanted = {} -%}
    {%- for field, key in tsdedup.measurement_state_properties().items() -%}
        {%- do wanted.update({key: record[field] | string}) -%}
    {%- endfor -%}
    {%- set sql = tsdedup.set_properties_if_changed(relation, state['properties'], wanted) -%}
    {%- if sql -%}
        {%- call statement('record_measurement_state') -%}
            {{ sql }}
        {%- endcall -%}
    {%- endif -%}
    {%- set retired = ['tsdedup.indexed_chunk_seq', 'tsdedup.indexed_snapshot_id'] | select('in', state['properties']) | list -%}
    {%- if retired -%}
        {%- call statement('unset_retired_properties') -%}
            alter table {{ relation }} unset tblproperties if exists {{ tsdedup.string_list(retired) }}
        {%- endcall -%}
        {%- do tsdedup.drop_retired_key_index() -%}
    {%- endif -%}
{% endmacro %}
