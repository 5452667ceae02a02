{#
    Chunk sequence numbers must stay below 2^31: the dedup models order points by
    chunk_seq * 2^32 + position in one bigint (ingestion_order). Raises before a
    run would number a chunk beyond that.
#}
{% macro validate_chunk_seq(chunk_seq) %}
    {% if chunk_seq | int > 2147483647 %}
        {% do exceptions.raise_compiler_error(
            "tsdedup: the next chunk would be number " ~ chunk_seq ~ ", beyond the last one the"
            ~ " ingestion order can hold (2147483647); rebuild the log with fewer, larger chunks"
        ) %}
    {% endif %}
{% endmacro %}
