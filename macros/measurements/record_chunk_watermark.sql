{#
    The measurement models' post-hook (added by tsdedup.measurement): after the
    data commit, record which measurement the table holds, its winner rule
    (`fields` or `last_row`), the new watermark and
    the one the run started from (0 for a first build or a full refresh), and
    the last retraction it has applied (retracted_days). The run statistics
    (record_run_statistics) and the live views read them.
#}
{% macro record_chunk_watermark(relation, measurement_name, dedup_mode) %}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- set previous = 0 if should_full_refresh() else (tsdedup.read_chunk_watermark(relation) or 0) -%}
    {{ return("alter table " ~ relation ~ " set tblproperties (\n"
        ~ "    'tsdedup.measurement' = " ~ tsdedup.string_literal(measurement_name) ~ ",\n"
        ~ "    'tsdedup.dedup_mode' = " ~ tsdedup.string_literal(dedup_mode) ~ ",\n"
        ~ "    'tsdedup.previous_chunk_seq' = '" ~ previous ~ "',\n"
        ~ "    'tsdedup.last_chunk_seq' = '" ~ tsdedup.last_cataloged_chunk_seq() ~ "',\n"
        ~ "    'tsdedup.retraction_seq' = '" ~ tsdedup.last_retraction_seq() ~ "'\n)") }}
{% endmacro %}
