{#
    The end of every measurement run, after its data commit (or none): bring the
    key index up to date (update_key_index), then write the table's state record
    (read_measurement_state) in one `alter table`, only if a value changed.
    A run that dies before that write leaves the old record: the next run merges
    the same chunks again and does not trust the key index (decision 0020).
    `wrote`: the run committed rows (for `previous_watermark`).
#}
{% macro record_measurement_state(relation, measurement_name, dedup_mode, full_refresh, wrote) %}
    {%- set state = tsdedup.read_measurement_state(relation) -%}
    {%- set start = 0 if full_refresh else (state['watermark'] or 0) -%}
    {%- set heads = tsdedup.log_heads() -%}
    {%- set last = heads['chunk_seq'] -%}
    {%- set index_current = start > 0 and state['key_index_chunk_seq'] == start -%}
    {%- for sql in tsdedup.update_key_index(relation, measurement_name, start, last, index_current, created=full_refresh) -%}
        {%- call statement('update_key_index') -%}
            {{ sql }}
        {%- endcall -%}
    {%- endfor -%}
    {%- set record = {
        'measurement': measurement_name,
        'dedup_mode': dedup_mode,
        'watermark': last,
        'previous_watermark': start if wrote or last != start else state['previous_watermark'],
        'retraction_seq': heads['retraction_seq'],
        'key_index_chunk_seq': last,
        'key_index_snapshot_id': state['snapshot_id'],
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
{% endmacro %}
