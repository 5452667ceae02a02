{#
    The state record of a measurement table, read with one `show tblproperties`
    (decision 0020; written by record_measurement_state). A dict:

      measurement, dedup_mode    the measurement it holds, its winner rule
      watermark                  last chunk merged; none if never recorded
      previous_watermark         the watermark before the last run that moved it
      retraction_seq             the last retraction applied
      series_hash_column         'series_hash' when the rows carry their series
                                 hash (decision 0026); none for a table written before
      written_snapshot_id        the snapshot the project's last run left (or none):
                                 a later one was written by someone else
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
        {%- if value is not none and field not in ['measurement', 'dedup_mode', 'series_hash_column', 'written_snapshot_id'] -%}
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
