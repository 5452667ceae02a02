{#
    The measurement models' post-hook (added by tsdedup.measurement): after the
    data commit, record which measurement the table holds, its winner rule
    (`fields` or `last_row`), the new watermark and
    the one the run started from (0 for a first build or a full refresh), and
    the last retraction it has applied (retracted_days). The run statistics
    (record_run_statistics) and the live views read them. Properties that
    already hold these values are not written again (each write is a commit
    that leaves a metadata file behind).
#}
{% macro record_chunk_watermark(relation, measurement_name, dedup_mode) %}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- set properties = tsdedup.table_properties(relation) -%}
    {%- set previous = 0 if should_full_refresh() else properties.get('tsdedup.last_chunk_seq', '0') | int -%}
    {%- set wanted = {
        'tsdedup.measurement': measurement_name,
        'tsdedup.dedup_mode': dedup_mode,
        'tsdedup.previous_chunk_seq': previous | string,
        'tsdedup.last_chunk_seq': tsdedup.last_cataloged_chunk_seq() | string,
        'tsdedup.retraction_seq': tsdedup.last_retraction_seq() | string,
    } -%}
    {{ return(tsdedup.set_properties_if_changed(relation, properties, wanted)) }}
{% endmacro %}
