{#
    The column types (`tag`, `float`, `integer`, `unsigned`, `string`,
    `boolean`) under which some chunk of the raw log writes a column of the
    measurement (of any measurement when `measurement_name` is none; in the
    chunks after `after_chunk` only, when given) with another type or spelling
    than the column catalog's: the conflicts int_type_conflicts reports, from
    the column rows (stg_columns, a few rows a chunk) without reading a point.
    Every column a point writes has a column row in its chunk, so only the tag
    or field maps of these types can hold a name the catalog does not list
    there; the points' other maps need no key test, and with no type at all no
    point is left out. A column row the catalog lacks under any spelling counts
    as a conflict.
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
