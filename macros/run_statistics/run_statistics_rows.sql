{#
    The run statistics of one measurement table for this run: a SELECT with one
    row per day partition the run changed or merged chunks into, or '' when the
    run committed nothing to the table.
#}
{% macro run_statistics_rows(relation, result, state) %}
    {%- set since = "timestamp'" ~ run_started_at.strftime('%Y-%m-%d %H:%M:%S.%f') ~ "'" -%}
    {%- set commits = run_query(
        'select count(*), min_by(parent_id, committed_at), max_by(snapshot_id, committed_at)'
        ~ ' from ' ~ relation ~ '.snapshots where committed_at >= ' ~ since
    ).rows[0] -%}
    {%- if commits[0] == 0 -%}
        {{ return('') }}
    {%- endif -%}
    {%- set before_snapshot, after_snapshot = commits[1], commits[2] -%}
    {%- set previous_chunk = state['previous_watermark'] -%}
    {%- set last_chunk = state['watermark'] or 0 -%}
    {%- set catalog = tsdedup.model_relation('sort_key_catalog') -%}
    {%- set sql -%}
select
    {{ tsdedup.string_literal(invocation_id) }} as invocation_id,
    {{ since }} as run_started_at,
    {{ tsdedup.string_literal(result.node.name) }} as model_name,
    {{ tsdedup.string_literal(state['measurement']) }} as measurement,
    d.partition_day,
    {{ 'true' if previous_chunk == 0 else 'false' }} as full_refresh,
    {{ after_snapshot }} as snapshot_id,
    coalesce(m.chunks_merged, 0) as chunks_merged,
    m.first_chunk_seq,
    m.last_chunk_seq,
    coalesce(m.points_merged, 0) as points_merged,
    coalesce(b.record_count, 0) as rows_before,
    coalesce(a.record_count, 0) as rows_after,
    coalesce(b.record_count, 0) + coalesce(m.points_merged, 0) - coalesce(a.record_count, 0) as duplicates_removed,
    if(s.complete, coalesce(c.files_rewritten, 0), null) as files_rewritten,
    if(s.complete, coalesce(c.files_written, 0), null) as files_written,
    cast({{ result.execution_time }} as double) as seconds,
    current_timestamp() as recorded_at
from (
    select partition_day from (
        select to_date(substring_index(p.key, '=', -1)) as partition_day
        from {{ relation }}.snapshots
        lateral view explode(map_filter(summary, (k, v) -> startswith(k, 'partitions.'))) p as key, value
        where committed_at >= {{ since }}
        union
        select partition_day
        from {{ catalog }}
        where
            measurement = {{ tsdedup.string_literal(state['measurement']) }}
            and chunk_seq > {{ previous_chunk }} and chunk_seq <= {{ last_chunk }}
    ) as days
) as d
cross join (
    select coalesce(bool_and(summary['partition-summaries-included'] = 'true'), false) as complete
    from {{ relation }}.snapshots
    where committed_at >= {{ since }}
) as s
left join (
    select
        to_date(substring_index(p.key, '=', -1)) as partition_day,
        sum(cast(coalesce(str_to_map(p.value, ',', '=')['deleted-data-files'], '0') as int)) as files_rewritten,
        sum(cast(coalesce(str_to_map(p.value, ',', '=')['added-data-files'], '0') as int)) as files_written
    from {{ relation }}.snapshots
    lateral view explode(map_filter(summary, (k, v) -> startswith(k, 'partitions.'))) p as key, value
    where committed_at >= {{ since }}
    group by 1
) as c
    on d.partition_day = c.partition_day
left join (
    select
        partition_day,
        count(*) as chunks_merged,
        min(chunk_seq) as first_chunk_seq,
        max(chunk_seq) as last_chunk_seq,
        sum(point_count) as points_merged
    from {{ catalog }}
    where
        measurement = {{ tsdedup.string_literal(state['measurement']) }}
        and chunk_seq > {{ previous_chunk }} and chunk_seq <= {{ last_chunk }}
    group by partition_day
) as m
    on d.partition_day = m.partition_day
left join (
    {%- if before_snapshot is none %}
    select cast(null as date) as partition_day, cast(0 as bigint) as record_count where 1 = 0
    {%- else %}
    -- rows a merge marked deleted are still counted in their data files
    select `partition`.time_day as partition_day, record_count - position_delete_record_count as record_count
    from {{ relation }}.partitions version as of {{ before_snapshot }}
    {%- endif %}
) as b
    on d.partition_day = b.partition_day
left join (
    -- rows a merge marked deleted are still counted in their data files
    select `partition`.time_day as partition_day, record_count - position_delete_record_count as record_count
    from {{ relation }}.partitions version as of {{ after_snapshot }}
) as a
    on d.partition_day = a.partition_day
    {%- endset -%}
    {{ return(sql) }}
{% endmacro %}
