{#
    Where each (measurement, column, type) first appears in each chunk: `tag`
    for tag columns, else the field type. Tiny compared to the points, so the
    column catalog is built from it without scanning points.
#}
select
    chunk_seq,
    position,
    measurement,
    column_name,
    column_type
from {{ ref('raw_chunks') }}
where row_kind = 'column'
