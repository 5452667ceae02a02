{#
    The current sort key of every time partition (measurement, day), with the
    tag cardinalities of the chunk that first set it. Measurement tables write
    each partition's rows in this order.
#}
select
    measurement,
    partition_day,
    max_by(partition_key, chunk_seq) as partition_key,
    min_by(cardinalities, chunk_seq) as first_chunk_cardinalities,
    min(chunk_seq) as first_chunk_seq,
    max(if(key_changed, chunk_seq, null)) as last_changed_chunk_seq,
    count(*) as chunks
from {{ ref('sort_key_catalog') }}
group by measurement, partition_day
