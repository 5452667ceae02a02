{#
    Accounting: a measurement table has exactly one row per distinct series and
    timestamp among the measurement's accepted points in raw_chunks (points with a
    type conflict are rejected, not kept). Fails with both counts when they differ.
#}
{% test rows_match_raw_keys(model, measurement=none) %}
    {%- set name = measurement or model.identifier -%}
    with accepted_points as (
        select
            p.tags,
            p.time_ns
        from {{ ref('stg_points') }} as p
        left anti join {{ ref('int_type_conflicts') }} as c
            on p.chunk_seq = c.chunk_seq and p.position = c.position
        where p.measurement = {{ tsdedup.string_literal(name) }}
    ),

    raw_keys as (
        select count(distinct array_sort(map_entries(tags)), time_ns) as distinct_keys
        from accepted_points
    ),

    table_rows as (
        select count(*) as table_rows
        from {{ model }}
    )

    select
        raw_keys.distinct_keys,
        table_rows.table_rows
    from raw_keys
    cross join table_rows
    where raw_keys.distinct_keys != table_rows.table_rows
{% endtest %}
