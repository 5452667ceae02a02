{#
    The table properties that hold a measurement table's state record: field of
    the record (read_measurement_state) -> property name. The one place that
    names them.
#}
{% macro measurement_state_properties() %}
    {{ return({
        'measurement': 'tsdedup.measurement',
        'dedup_mode': 'tsdedup.dedup_mode',
        'watermark': 'tsdedup.last_chunk_seq',
        'previous_watermark': 'tsdedup.previous_chunk_seq',
        'retraction_seq': 'tsdedup.retraction_seq',
        'series_hash_column': 'tsdedup.series_hash_column',
        'written_snapshot_id': 'tsdedup.written_snapshot_id',
        'chunks_bounded': 'tsdedup.chunks_bounded',
        'keys_shared': 'tsdedup.keys_shared',
    }) }}
{% endmacro %}
