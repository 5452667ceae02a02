{#
    One row per chunk and time partition (measurement, day of `time`) with
    accepted points: how many points, their time range, and how many distinct
    values each tag has there. The first chunk of a partition orders the
    partition's sort key by these counts.
#}
with accepted_points as (
    select
        p.measurement,
        to_date({{ tsdedup.time_from_ns('p.time_ns') }}) as partition_day,
        p.chunk_seq,
        p.time_ns,
        p.tags
    from {{ ref('stg_points') }} as p
    left anti join {{ ref('int_type_conflicts') }} as c
        on p.chunk_seq = c.chunk_seq and p.position = c.position
),

chunk_partitions as (
    select
        measurement,
        partition_day,
        chunk_seq,
        count(*) as point_count,
        min(time_ns) as min_time_ns,
        max(time_ns) as max_time_ns
    from accepted_points
    group by measurement, partition_day, chunk_seq
),

tag_values as (
    select
        a.measurement,
        a.partition_day,
        a.chunk_seq,
        t.tag_name,
        t.tag_value
    from accepted_points as a
        lateral view explode(a.tags) t as tag_name, tag_value
),

tag_counts as (
    select
        measurement,
        partition_day,
        chunk_seq,
        map_from_entries(collect_list(struct(tag_name, distinct_values))) as cardinalities
    from (
        select
            measurement,
            partition_day,
            chunk_seq,
            tag_name,
            count(distinct tag_value) as distinct_values
        from tag_values
        group by measurement, partition_day, chunk_seq, tag_name
    ) as per_tag
    group by measurement, partition_day, chunk_seq
)

select
    p.measurement,
    p.partition_day,
    p.chunk_seq,
    p.point_count,
    p.min_time_ns,
    p.max_time_ns,
    coalesce(t.cardinalities, cast(map() as map<string, bigint>)) as cardinalities
from chunk_partitions as p
left join tag_counts as t
    on
        p.measurement = t.measurement
        and p.partition_day = t.partition_day
        and p.chunk_seq = t.chunk_seq
