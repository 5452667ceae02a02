-- time_from_ns (a nanosecond time as a timestamp, rounded towards the past),
-- floor_div (the day number of a time, as the raw log partitions it)
-- and day_predicates (one day's rows, on nanoseconds or on the timestamp).
with times as (
    select
        time_ns,
        {{ tsdedup.time_from_ns('time_ns') }} as point_time
    from {{ ref('point_times') }}
)

select
    time_ns,
    date_format(point_time, 'yyyy-MM-dd HH:mm:ss.SSSSSS') as time_text,
    cast(to_date(point_time) as string) as point_day,
    {{ tsdedup.floor_div('time_ns', 86400000000000) }} as day_number,
    {{ tsdedup.day_predicates('time_ns', ['2026-11-25'], nanoseconds=true) }} as on_day_by_ns,
    {{ tsdedup.day_predicates('point_time', ['2026-11-25']) }} as on_day_by_time
from times
