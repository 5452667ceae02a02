{#
    Where each (measurement, column, type) first appears in each chunk: `tag`
    for tag columns, else the field type. Tiny compared to the points, so the
    column catalog is built from it without scanning points. Retracted chunks
    are left out. `flat_column` names the raw log's column that holds the
    column's values in the chunk's point rows (decision 0025), if any.
#}
select
    c.chunk_seq,
    c.position,
    c.measurement,
    c.column_name,
    c.column_type,
    c.flat_column
from {{ ref('raw_chunks') }} as c
left anti join {{ source('tsdedup_runs', 'retracted_chunks') }} as r
    on c.chunk_seq = r.chunk_seq
where c.row_kind = 'column'
