-- The sort-key functions: a partition's first chunk sets its key
-- (tsdedup_compute_sort_key), a later chunk extends it (tsdedup_update_sort_key).
with chunks as (
    select
        case_id,
        chunk,
        map_from_entries(collect_list(struct(tag, cardinality))) as cardinalities
    from {{ ref('sort_key_chunks') }}
    group by case_id, chunk
),

first_keys as (
    select
        case_id,
        tsdedup_compute_sort_key(cardinalities) as sort_key
    from chunks
    where chunk = 1
),

updated as (
    select
        f.case_id,
        f.sort_key as first_key,
        tsdedup_update_sort_key(f.sort_key, c.cardinalities) as new_keys
    from first_keys as f
    inner join chunks as c
        on f.case_id = c.case_id and c.chunk = 2
)

select
    case_id,
    array_join(first_key, ' ') as first_key,
    array_join(new_keys.partition_key, ' ') as partition_key,
    array_join(new_keys.chunk_key, ' ') as chunk_key
from updated
