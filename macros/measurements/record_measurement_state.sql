{#
    The end of every measurement run, after its data commit (or none): write
    the table's state record (read_measurement_state) in one `alter table`,
    only if a value changed. A run that dies before that write leaves the old
    record: the next run merges the same chunks again and, as the table's
    snapshot is not the recorded one, does not trust its series hashes
    (decisions 0020, 0026). A table written before series hashes loses the
    properties of its key index's record, and the key index is dropped.
    `wrote`: the run committed rows (for `previous_watermark`). `vouched`: the
    table was at the snapshot its record names when the run began; if not,
    someone else wrote it (a crash between a commit and its record, or a
    statement from outside the project), and every row whose `series_hash` is
    not its tags' hash is put right first, so the record vouches for the hashes
    of the snapshot it names.
#}
{% macro record_measurement_state(relation, measurement_name, dedup_mode, full_refresh, wrote, vouched=true) %}
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
    {%- set heads = tsdedup.log_heads() -%}
    {%- set last = heads['chunk_seq'] -%}
    {%- set record = {
        'measurement': measurement_name,
        'dedup_mode': dedup_mode,
        'watermark': last,
        'previous_watermark': start if wrote or last != start else state['previous_watermark'],
        'retraction_seq': heads['retraction_seq'],
        'series_hash_column': 'series_hash',
        'written_snapshot_id': state['snapshot_id'],
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
