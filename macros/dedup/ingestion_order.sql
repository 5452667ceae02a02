{#
    A point's place in ingestion order as one bigint, chunk_seq * 2^32 +
    position, ordered exactly like (chunk_seq, position) within the limits
    that validate_chunk_seq and the chunk reader enforce (decision 0012).
#}
{% macro ingestion_order(chunk_seq='chunk_seq', position='position') %}
    {{ return(chunk_seq ~ ' * 4294967296 + ' ~ position) }}
{% endmacro %}
