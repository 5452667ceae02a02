{#
    A point's place in ingestion order as one bigint: the chunk's sequence number
    times 2^32, plus the point's position in the chunk. Orders exactly like
    (chunk_seq, position) while chunk_seq < 2^31 and 0 <= position < 2^32; the
    landing macro refuses chunk numbers beyond that and the chunk reader positions
    beyond it, so the product cannot overflow.

    One bigint instead of struct(chunk_seq, position): the dedup's sort compares
    one fixed-width value after the key, not a struct.
#}
{% macro ingestion_order(chunk_seq='chunk_seq', position='position') %}
    {{ return(chunk_seq ~ ' * 4294967296 + ' ~ position) }}
{% endmacro %}
