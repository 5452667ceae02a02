{#
    Chunks whose points lie implausibly far from when the chunk was ingested:
    before var('tsdedup_earliest_time'), or more than
    var('tsdedup_max_days_ahead') days after the ingest. Such times almost
    always come from a file read in the wrong precision (milliseconds read as
    nanoseconds land in January 1970), so each row names the precision under
    which all of the chunk's points would be plausible, where one exists. The
    run summary and the report show the rows of the chunks a run ingested.
#}
with chunks as (
    select
        chunk_seq,
        source_file,
        ingested_at,
        invocation_id,
        points,
        min_time_ns,
        max_time_ns,
        read_precision,
        unix_micros(
            timestamp{{ tsdedup.string_literal(var('tsdedup_earliest_time')) }}
        ) * 1000 as earliest_plausible_ns,
        (unix_micros(ingested_at) + {{ var('tsdedup_max_days_ahead') | int }} * 86400000000) * 1000
            as latest_plausible_ns
    from {{ ref('int_chunk_times') }}
    where points > 0
),

suspect as (
    select
        chunk_seq,
        source_file,
        ingested_at,
        invocation_id,
        points,
        min_time_ns,
        max_time_ns,
        read_precision,
        earliest_plausible_ns,
        latest_plausible_ns
    from chunks
    where min_time_ns < earliest_plausible_ns or max_time_ns > latest_plausible_ns
),

units as (
    select
        unit,
        unit_ns
    from values ('ns', 1), ('us', 1000), ('ms', 1000000), ('s', 1000000000) as units (unit, unit_ns)
),

plausible_units as (
    {#- The units whose scale puts every point of the chunk in range, read
        instead of the one the chunk was read in. #}
    select
        s.chunk_seq,
        u.unit,
        abs(log10(u.unit_ns / r.unit_ns)) as distance
    from suspect as s
    inner join units as r
        on s.read_precision = r.unit
    inner join units as u
        on r.unit != u.unit
    where
        s.min_time_ns * (u.unit_ns / r.unit_ns) >= s.earliest_plausible_ns
        and s.max_time_ns * (u.unit_ns / r.unit_ns) <= s.latest_plausible_ns
),

likely_units as (
    {#- Of those, the one nearest the unit read. #}
    select
        chunk_seq,
        min_by(unit, distance) as likely_precision
    from plausible_units
    group by chunk_seq
)

select
    s.chunk_seq,
    s.source_file,
    s.ingested_at,
    s.invocation_id,
    s.points,
    {{ tsdedup.time_from_ns('s.min_time_ns') }} as first_time,
    {{ tsdedup.time_from_ns('s.max_time_ns') }} as last_time,
    s.read_precision,
    p.likely_precision,
    concat(
        'points from ', cast({{ tsdedup.time_from_ns('s.min_time_ns') }} as string),
        ' to ', cast({{ tsdedup.time_from_ns('s.max_time_ns') }} as string),
        ', read in ', s.read_precision, ', lie far from the ingest time ',
        cast(s.ingested_at as string),
        coalesce(
            concat(
                ': the timestamps look like ',
                case p.likely_precision
                    when 'ns' then 'nanoseconds'
                    when 'us' then 'microseconds'
                    when 'ms' then 'milliseconds'
                    when 's' then 'seconds'
                end,
                ' (a file with _', p.likely_precision, '_ in its name is read in them)'
            ),
            ''
        )
    ) as problem
from suspect as s
left join likely_units as p
    on s.chunk_seq = p.chunk_seq
