{#
    Where every line of every chunk went. For each chunk:
        lines_read   = points_read + lines_rejected + lines_skipped (blank or comment)
        points_read  = type_conflicts + points_retracted + points_kept
        points_kept  = duplicates_removed + points that are still the latest delivery
    `duplicates_removed` counts the chunk's points that a later delivery of the same
    series and timestamp supersedes (their non-null fields may still win, field by field).
#}
with chunks as (
    select
        chunk_seq,
        source_file,
        lines_read,
        ingested_at
    from {{ ref('stg_chunks') }}
),

parse_rejects as (
    select
        chunk_seq,
        count(*) as lines_rejected
    from {{ ref('stg_parse_rejects') }}
    group by chunk_seq
),

retracted_points as (
    {#- The points of retracted chunks, which stg_points leaves out. #}
    select
        p.chunk_seq,
        count(*) as points_retracted
    from {{ ref('raw_chunks') }} as p
    left semi join {{ source('tsdedup_runs', 'retracted_chunks') }} as r
        on p.chunk_seq = r.chunk_seq
    where p.row_kind = 'point'
    group by p.chunk_seq
),

type_conflicts as (
    select
        chunk_seq,
        position
    from {{ ref('int_type_conflicts') }}
),

points as (
    select
        p.chunk_seq,
        p.position,
        p.measurement,
        sort_array(map_entries(p.tags)) as series_tags,
        p.time_ns,
        t.position is not null as is_type_conflict
    from {{ ref('stg_points') }} as p
    left join type_conflicts as t
        on p.chunk_seq = t.chunk_seq and p.position = t.position
),

kept_points as (
    select
        chunk_seq,
        position,
        struct(chunk_seq, position) < max(struct(chunk_seq, position)) over (
            partition by measurement, series_tags, time_ns
        ) as is_superseded
    from points
    where not is_type_conflict
),

point_counts as (
    select
        chunk_seq,
        count(*) as points_read,
        count_if(is_type_conflict) as type_conflicts
    from points
    group by chunk_seq
),

superseded_counts as (
    select
        chunk_seq,
        count_if(is_superseded) as duplicates_removed
    from kept_points
    group by chunk_seq
)

select
    c.chunk_seq,
    c.source_file,
    c.ingested_at,
    c.lines_read,
    coalesce(p.points_read, 0) + coalesce(x.points_retracted, 0) as points_read,
    coalesce(r.lines_rejected, 0) as lines_rejected,
    c.lines_read - coalesce(p.points_read, 0) - coalesce(x.points_retracted, 0)
    - coalesce(r.lines_rejected, 0) as lines_skipped,
    coalesce(p.type_conflicts, 0) as type_conflicts,
    coalesce(x.points_retracted, 0) as points_retracted,
    coalesce(p.points_read, 0) - coalesce(p.type_conflicts, 0) as points_kept,
    coalesce(s.duplicates_removed, 0) as duplicates_removed
from chunks as c
left join point_counts as p on c.chunk_seq = p.chunk_seq
left join retracted_points as x on c.chunk_seq = x.chunk_seq
left join parse_rejects as r on c.chunk_seq = r.chunk_seq
left join superseded_counts as s on c.chunk_seq = s.chunk_seq
