{#
    The state record of a measurement table, read with one `show tblproperties`
    (decision 0020; written by record_measurement_state). A dict:

      measurement, dedup_mode    the measurement it holds, its winner rule
      watermark                  last chunk merged; none if never recorded
      previous_watermark         the watermark before the last run that moved it
      retraction_seq             the last retraction applied
      key_index_chunk_seq        the index holds the keys up to this chunk (or none)
      key_index_snapshot_id      ... of this snapshot of the table (or none)
      snapshot_id, write_ordered, properties   what Iceberg says
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
        {%- if value is not none and field not in ['measurement', 'dedup_mode', 'key_index_snapshot_id'] -%}
            {%- set value = value | int -%}
        {%- endif -%}
        {%- do state.update({field: value}) -%}
    {%- endfor -%}
    {%- do state.update({
        'previous_watermark': state['previous_watermark'] or 0,
        'retraction_seq': state['retraction_seq'] or 0,
    }) -%}
    {{ return(state) }}
{% endmacro %}
