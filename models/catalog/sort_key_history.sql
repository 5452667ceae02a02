{#
    Every change of a partition sort key: the first chunk of a partition inserts
    it, a chunk with new tags updates it (like IOx's catalog updates).
#}
select
    measurement,
    partition_day,
    chunk_seq,
    if(previous_key is null, 'insert', 'update') as change,
    previous_key,
    partition_key,
    cardinalities,
    recorded_at
from (
    select
        measurement,
        partition_day,
        chunk_seq,
        lag(partition_key) over (
            partition by measurement, partition_day
            order by chunk_seq
        ) as previous_key,
        partition_key,
        key_changed,
        cardinalities,
        recorded_at
    from {{ ref('sort_key_catalog') }}
) as keyed
where key_changed
