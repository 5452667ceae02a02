{#
    Points of every measurement, as parsed at ingest; retracted chunks left
    out (int_accepted_points also leaves out type conflicts).
#}
select
    p.chunk_seq,
    p.position,
    p.source_file,
    p.measurement,
    p.tags,
    p.fields_float,
    p.fields_int,
    p.fields_uint,
    p.fields_string,
    p.fields_bool,
    p.time_ns,
    p.time_from_ingest
from {{ ref('raw_chunks') }} as p
left anti join {{ source('tsdedup_runs', 'retracted_chunks') }} as r
    on p.chunk_seq = r.chunk_seq
where p.row_kind = 'point'
