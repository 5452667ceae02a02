{# One row per ingested file (chunk), in ingestion order. #}
select
    chunk_seq,
    source_file,
    source_path,
    source_bytes,
    source_modified_at,
    content_sha256,
    lines_read,
    ingested_at,
    invocation_id
from {{ ref('raw_chunks') }}
where row_kind = 'chunk'
