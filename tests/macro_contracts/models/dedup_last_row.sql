-- deduplicate_points, mode `last_row`: per key, the whole last point.
with points as (
    select
        measurement,
        chunk_seq,
        position,
        named_struct(
            'host', host, 'region', region, 'time_ns', time_ns, 'usage', usage, 'status', status
        ) as point
    from {{ ref('dedup_points') }}
),

deduplicated as (
    {{ tsdedup.deduplicate_points(
        'points',
        ['host', 'region', 'time_ns'],
        ['usage', 'status'],
        ['chunk_seq', 'position'],
        mode='last_row',
        hidden_keys=['measurement'],
    ) | indent(4) }}
)

select
    measurement,
    point.host,
    point.region,
    point.time_ns,
    point.usage,
    point.status
from deduplicated
