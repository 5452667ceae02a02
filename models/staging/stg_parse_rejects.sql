{# Lines that could not be read as points, with the reason. #}
select
    chunk_seq,
    position as line_number,
    source_file,
    line_text,
    reject_reason
from {{ ref('raw_chunks') }}
where row_kind = 'reject'
