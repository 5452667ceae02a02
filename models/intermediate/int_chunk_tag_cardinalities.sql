{#
    One row per chunk and time partition (measurement, day of `time`) with
    accepted points: how many points, their time range, and how many distinct
    values each tag has there. The first chunk of a partition orders the
    partition's sort key by these counts.

    The points are read once: each point becomes one row for itself (tag_name
    NULL) and one row per tag it carries (none when its tags are NULL), and one
    aggregation counts both. The tag rows are the map's entries as they are,
    without a lambda (decision 0023).
    Reading them once also matters to readers that filter this view by
    chunk_seq (sort_key_catalog): Spark then pushes the filter into every scan
    of the raw log, the type-conflict check's included, so a run reads only the
    new chunks' points and not every point ever landed.
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

point_and_tag_rows as (
    select
        a.measurement,
        a.partition_day,
        a.chunk_seq,
        a.time_ns,
        r.tag_name,
        r.tag_value
    from accepted_points as a
        lateral view inline(
            concat(
                array(named_struct('key', cast(null as string), 'value', cast(null as string))),
                map_entries(coalesce(a.tags, cast(map() as map<string, string>)))
            )
        ) r as tag_name, tag_value
),

per_tag as (
    select
        measurement,
        partition_day,
        chunk_seq,
        tag_name,
        count(*) as group_rows,
        min(time_ns) as min_time_ns,
        max(time_ns) as max_time_ns,
        count(distinct tag_value) as distinct_values
    from point_and_tag_rows
    group by measurement, partition_day, chunk_seq, tag_name
)

select
    measurement,
    partition_day,
    chunk_seq,
    -- the rows without a tag name are the points themselves
    max(if(tag_name is null, group_rows, null)) as point_count,
    min(min_time_ns) as min_time_ns,
    max(max_time_ns) as max_time_ns,
    map_from_entries(
        collect_list(if(tag_name is null, null, struct(tag_name, distinct_values)))
    ) as cardinalities
from per_tag
group by measurement, partition_day, chunk_seq
