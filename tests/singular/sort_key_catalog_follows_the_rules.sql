{#
    Every row of the sort-key catalog is what the IOx rules give, recomputed here
    with the SQL functions tsdedup_compute_sort_key and tsdedup_update_sort_key:
    a partition's first chunk computes the key from its tag cardinalities, every
    later chunk updates the previous key. Returns the rows that disagree.
#}
with catalog as (
    select
        measurement,
        partition_day,
        chunk_seq,
        chunk_key,
        partition_key,
        key_changed,
        cardinalities,
        lag(partition_key) over (
            partition by measurement, partition_day
            order by chunk_seq
        ) as previous_key
    from {{ ref('sort_key_catalog') }}
),

recomputed as (
    select
        *,
        if(
            previous_key is null,
            named_struct(
                'partition_key', tsdedup_compute_sort_key(cardinalities),
                'chunk_key', tsdedup_compute_sort_key(cardinalities)
            ),
            tsdedup_update_sort_key(previous_key, cardinalities)
        ) as expected
    from catalog
)

select
    measurement,
    partition_day,
    chunk_seq,
    partition_key,
    expected.partition_key as expected_partition_key,
    chunk_key,
    expected.chunk_key as expected_chunk_key
from recomputed
where
    partition_key != expected.partition_key
    or chunk_key != expected.chunk_key
    or key_changed != (previous_key is null or previous_key != partition_key)
