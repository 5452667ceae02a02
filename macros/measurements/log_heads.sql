{#
    Where the logs a measurement table follows stand, in one query: the last
    chunk and the last retraction, and with `measurement_name` what came after
    chunk `after_chunk` for it (_measurements__macros.yml; decision 0018).
#}
{% macro log_heads(measurement_name=none, after_chunk=0) %}
    {#- ref() before anything returns: dbt learns the dependencies while parsing. -#}
    {%- set catalog = ref('sort_key_catalog') -%}
    {%- set column_types = ref('int_column_types') -%}
    {%- set empty = {'chunk_seq': 0, 'retraction_seq': 0, 'new_catalog_rows': 0, 'new_columns': 0} -%}
    {#- In a dbt unit test the relations are CTEs of fixture rows, not tables to query. -#}
    {%- if not execute or (catalog | string).startswith('__dbt__cte__') -%}
        {{ return(empty) }}
    {%- endif -%}
    {%- set sql -%}
        select
            (select coalesce(max(chunk_seq), 0) from {{ catalog }}) as chunk_seq,
            (
                select coalesce(max(retraction_seq), 0)
                from {{ tsdedup.retracted_chunks_relation() }}
            ) as retraction_seq
            {%- if measurement_name is not none %},
            (
                select count(*)
                from {{ catalog }}
                where
                    measurement = {{ tsdedup.string_literal(measurement_name) }}
                    and chunk_seq > {{ after_chunk | int }}
            ) as new_catalog_rows,
            (
                select count(*)
                from {{ column_types }}
                where
                    measurement = {{ tsdedup.string_literal(measurement_name) }}
                    and first_chunk_seq > {{ after_chunk | int }}
            ) as new_columns
            {%- endif %}
    {%- endset -%}
    {%- set row = run_query(sql).rows[0] -%}
    {%- set heads = {'chunk_seq': row['chunk_seq'] | int, 'retraction_seq': row['retraction_seq'] | int} -%}
    {%- if measurement_name is not none -%}
        {%- do heads.update({
            'new_catalog_rows': row['new_catalog_rows'] | int,
            'new_columns': row['new_columns'] | int,
        }) -%}
    {%- endif -%}
    {{ return(heads) }}
{% endmacro %}
