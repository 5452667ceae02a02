{# Measurement post-hook after update_key_index: the index now holds the table's keys. #}
{% macro record_key_index(relation) %}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {{ return("alter table " ~ relation ~ " set tblproperties ('tsdedup.key_index_chunk_seq' = '"
        ~ tsdedup.read_chunk_watermark(relation) ~ "')") }}
{% endmacro %}
