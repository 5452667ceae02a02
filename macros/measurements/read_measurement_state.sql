{#
    The state record of a measurement table as a dict, read with one `show
    tblproperties` (decision 0020; the keys: _measurements__macros.yml;
    written by record_measurement_state).
#}
{% macro read_measurement_state(relation) %}
    {%- set properties = tsdedup.table_properties(relation) -%}
    {%- set keys = tsdedup.measurement_state_properties() -%}
    {%- set state = {
        'snapshot_id': properties.get('current-snapshot-id', 'none'),
        'write_ordered': 'sort-order' in properties,
        'properties': properties,
    } -%}
    {%- for field, key in keys.items() -%}
        {%- set value = properties.get(key) -%}
        {%- if value is not none and field not in ['measurement', 'dedup_mode', 'series_hash_column', 'written_snapshot_id', 'chunks_bounded', 'keys_shared'] -%}
            {%- set value = value | int -%}
        {%- endif -%}
        {%- do state.update({field: value}) -%}
    {%- endfor -%}
    {%- do state.update({
        'previous_watermark': state['previous_watermark'] or 0,
        'retraction_seq': state['retraction_seq'] or 0,
        'chunks_bounded': state['chunks_bounded'] == 'true',
        'keys_shared': state['keys_shared'] != 'false',
    }) -%}
    {{ return(state) }}
{% endmacro %}
