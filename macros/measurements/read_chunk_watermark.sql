{#
    Which chunks a measurement table already holds. A run merges every chunk after
    the table's watermark, then records as the new watermark the last chunk of
    the sort-key catalog, which has a row for every chunk with accepted points
    (table property `tsdedup.last_chunk_seq`, written by the measurement models'
    post-hook after their data commit). Nothing ingests while a run builds the
    measurement tables (one run per home), so that is the last chunk merged.

    A run that dies between the two leaves the old watermark (or none, when it
    had just created the table: read as 0); the next run merges the same chunks
    again on top of data that already holds them, which gives the same result
    (every winner is the last value in ingestion order among the chunks merged,
    and those are re-applied together). That run must not append them: the
    key index does not know their keys yet, so it is not trusted (see
    record_key_index).
#}
{% macro read_chunk_watermark(relation) %}
    {%- if not execute or relation is none -%}
        {{ return(0) }}
    {%- endif -%}
    {%- set properties = tsdedup.table_properties(relation) -%}
    {{ return(properties['tsdedup.last_chunk_seq'] | int if 'tsdedup.last_chunk_seq' in properties else none) }}
{% endmacro %}
