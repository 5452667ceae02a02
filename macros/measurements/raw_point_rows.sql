{#
    The FROM and WHERE of a measurement's point rows read from the raw log
    itself, as `p`, with stg_points' filters (point rows, retracted chunks
    left out): stg_points is a view, which lists the columns the log had
    when it was created, not the flat columns added since (decision 0025).
    Callers go on with `and ...`.
#}
{% macro raw_point_rows(measurement_name) %}
    {%- set sql -%}
    from {{ ref('raw_chunks') }} as p
    left anti join {{ source('tsdedup_runs', 'retracted_chunks') }} as r
        on p.chunk_seq = r.chunk_seq
    where
        p.row_kind = 'point'
        and p.measurement = {{ tsdedup.string_literal(measurement_name) }}
    {%- endset -%}
    {{ return(sql) }}
{% endmacro %}
