{# Accepted points of every measurement, as parsed at ingest. #}
select
    chunk_seq,
    position,
    source_file,
    measurement,
    tags,
    fields_float,
    fields_int,
    fields_uint,
    fields_string,
    fields_bool,
    time_ns,
    time_from_ingest
from {{ ref('raw_chunks') }}
where row_kind = 'point'
