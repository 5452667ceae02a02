{#
    Measurement post-hook after update_key_index: the index now holds the keys
    of the table as of its current snapshot. Runs trust the index only while
    both still hold (the watermark and the snapshot): a run that died after its
    data commit but before its post-hooks leaves a table with keys the index
    does not know, and a newer snapshot than the one recorded here.
#}
{% macro record_key_index(relation) %}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- set properties = tsdedup.table_properties(relation) -%}
    {%- set wanted = {
        'tsdedup.key_index_chunk_seq': properties.get('tsdedup.last_chunk_seq', 'none'),
        'tsdedup.key_index_snapshot_id': properties.get('current-snapshot-id', 'none'),
    } -%}
    {{ return(tsdedup.set_properties_if_changed(relation, properties, wanted)) }}
{% endmacro %}
