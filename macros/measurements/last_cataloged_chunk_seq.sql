{#
    The last chunk of the chunk catalog (0 when it is empty). The catalog model
    passes itself (`this`), as does int_chunk_times, a catalog of chunks too;
    everyone else reads `sort_key_catalog`.
#}
{% macro last_cataloged_chunk_seq(catalog_relation=none) %}
    {%- if not execute -%}
        {{ return(0) }}
    {%- endif -%}
    {%- set relation = catalog_relation if catalog_relation is not none else ref('sort_key_catalog') -%}
    {%- set result = run_query('select coalesce(max(chunk_seq), 0) from ' ~ relation) -%}
    {{ return(result.columns[0].values()[0] | int) }}
{% endmacro %}
