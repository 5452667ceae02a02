-- series_hash: each tag set with the first tag set whose hash it shares.
with tag_sets as (
    select
        tag_set,
        tag_columns,
        host,
        region,
        rack
    from {{ ref('series_hash_tag_sets') }}
),

hashed as (
    select
        tag_set,
        {{ tsdedup.series_hash(['host', 'region']) }} as series_hash
    from tag_sets
    where tag_columns = 'host region'
    union all
    select
        tag_set,
        {{ tsdedup.series_hash(['host', 'region', 'rack']) }} as series_hash
    from tag_sets
    where tag_columns = 'host region rack'
    union all
    select
        tag_set,
        {{ tsdedup.series_hash([]) }} as series_hash
    from tag_sets
    where tag_columns = 'none'
)

select
    tag_set,
    min(tag_set) over (partition by series_hash) as hashes_like
from hashed
