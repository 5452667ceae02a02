{# The last chunk of the chunk catalog (0 when it is empty). #}
{% macro last_cataloged_chunk_seq() %}
    {%- set catalog_relation = ref('sort_key_catalog') -%}
    {%- if not execute -%}
        {{ return(0) }}
    {%- endif -%}
    {%- set result = run_query('select coalesce(max(chunk_seq), 0) from ' ~ catalog_relation) -%}
    {{ return(result.columns[0].values()[0] | int) }}
{% endmacro %}
