{#
    The accounting of one measurement table: every point of the measurement
    in the raw log is retracted, a type conflict or accepted (staging loses
    none), and the table has one row per distinct series and timestamp among
    the accepted points, so the duplicates removed are the accepted points
    less the rows. Fails with every term when either does not hold.
#}
{% test rows_match_raw_keys(model, measurement=none) %}
    {%- set name = tsdedup.string_literal(measurement or model.identifier) -%}
    with landed as (
        select
            count(*) as points_landed,
            count_if(r.chunk_seq is not null) as points_retracted
        from {{ ref('raw_chunks') }} as p
        left join {{ source('tsdedup_runs', 'retracted_chunks') }} as r
            on p.chunk_seq = r.chunk_seq
        where p.row_kind = 'point' and p.measurement = {{ name }}
    ),

    conflicts as (
        select count(*) as type_conflicts
        from {{ ref('int_type_conflicts') }}
        where measurement = {{ name }}
    ),

    accepted as (
        select
            count(*) as points_accepted,
            count(distinct sort_array(map_entries(p.tags)), p.time_ns) as distinct_keys
        from {{ ref('int_accepted_points') }} as p
        where p.measurement = {{ name }}
    ),

    stored as (
        select count(*) as table_rows
        from {{ model }}
    ),

    accounting as (
        select
            l.points_landed,
            l.points_retracted,
            c.type_conflicts,
            a.points_accepted,
            a.points_accepted - a.distinct_keys as duplicates_removed,
            s.table_rows,
            a.distinct_keys
        from landed as l
        cross join conflicts as c
        cross join accepted as a
        cross join stored as s
    )

    select *
    from accounting
    where
        table_rows != distinct_keys
        or points_landed != points_retracted + type_conflicts + points_accepted
{% endtest %}
