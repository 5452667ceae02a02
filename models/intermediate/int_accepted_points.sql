{#
    The points that count: staging's points (retracted chunks left out)
    without a type conflict. The one definition that the chunk catalog, the
    live views, the accounting test and the sample's summary read.
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
from {{ ref('stg_points') }} as p
left anti join {{ ref('int_type_conflicts') }} as c
    on
        p.chunk_seq = c.chunk_seq
        and p.position = c.position
