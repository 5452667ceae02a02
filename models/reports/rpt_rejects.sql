{#
    Every rejected line or point, with file, line and a readable reason: lines
    that could not be parsed, and points that conflict with a column's type.
#}
select
    chunk_seq,
    source_file,
    line_number,
    cast(null as string) as measurement,
    line_text,
    reject_reason
from {{ ref('stg_parse_rejects') }}

union all

select
    chunk_seq,
    source_file,
    position as line_number,
    measurement,
    line_text,
    reject_reason
from {{ ref('int_type_conflicts') }}
