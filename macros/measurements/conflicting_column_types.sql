{#
    The column types under which some chunk writes a column of the
    measurement with another type or spelling than the column catalog's,
    from the column rows alone: only the maps of these types need a key test
    (_measurements__macros.yml).
#}
{% macro conflicting_column_types(measurement_name=none, after_chunk=none) %}
    {%- if not execute -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set sql -%}
        select distinct c.column_type
        from {{ tsdedup.model_relation('stg_columns') }} as c
        left join {{ tsdedup.model_relation('int_column_types') }} as t
            on {{ tsdedup.same_column('c', 't') }}
        where
            (t.column_name is null or {{ tsdedup.conflicts_with_catalog('c', 't') }})
            {%- if measurement_name is not none %}
            and c.measurement = {{ tsdedup.string_literal(measurement_name) }}
            {%- endif %}
            {%- if after_chunk is not none %}
            and c.chunk_seq > {{ after_chunk }}
            {%- endif %}
    {%- endset -%}
    {{ return(run_query(sql).columns[0].values() | list) }}
{% endmacro %}
