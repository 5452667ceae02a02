{#
    The FROM and WHERE of a measurement's point rows, as `p`: from stg_points,
    or, with a `layout` (point_layout), from the raw log itself with
    stg_points' filters (point rows, retracted chunks left out), since the
    view lists the columns the log had when it was created, not the flat
    columns added since (decision 0025). Callers go on with `and ...`.
#}
{% macro point_rows(measurement_name, layout=none) %}
    {%- set sql -%}
    {%- if layout is none -%}
    from {{ ref('stg_points') }} as p
    where
        p.measurement = {{ tsdedup.string_literal(measurement_name) }}
    {%- else -%}
    from {{ ref('raw_chunks') }} as p
    left anti join {{ source('tsdedup_runs', 'retracted_chunks') }} as r
        on p.chunk_seq = r.chunk_seq
    where
        p.row_kind = 'point'
        and p.measurement = {{ tsdedup.string_literal(measurement_name) }}
    {%- endif -%}
    {%- endset -%}
    {{ return(sql) }}
{% endmacro %}
