{#
    The body of a measurement model, `{{ tsdedup.measurement('h2o') }}`: the
    measurement's points, deduplicated under `dedup_mode` (default
    var('tsdedup_dedup_mode')). Its compiled SQL starts with the write mode it
    chose: docs/internals.md, "The write modes" (decisions 0013, 0018, 0026).
#}
{% macro measurement(measurement_name, dedup_mode=none) %}
    {%- if measurement_name is not string or measurement_name | length == 0 -%}
        {% do exceptions.raise_compiler_error("tsdedup.measurement: pass the measurement name as a non-empty string") %}
    {%- endif -%}
    {%- set mode = dedup_mode or var('tsdedup_dedup_mode', 'fields') -%}
    {%- do tsdedup.validate_dedup_mode(mode) -%}
    {#- The measurement and winner rule are in the model's meta: the materialization
        records them with the table's state (record_measurement_state), and
        rpt_measurements knows which measurements have a table from the project alone. -#}
    {{ config(meta={'tsdedup_measurement': measurement_name, 'tsdedup_dedup_mode': mode}) }}
    {#- dbt's unit tests compile the model as materialized 'unit'. -#}
    {%- if execute and config.get('materialized') not in ['measurement', 'unit'] -%}
        {% do exceptions.raise_compiler_error("tsdedup.measurement('" ~ measurement_name ~ "'): " ~ this
            ~ " must be materialized as 'measurement', not '" ~ config.get('materialized') ~ "'") %}
    {%- endif -%}
    {%- set points_relation = ref('stg_points') -%}
    {#- The flat columns are read from the raw log itself (point_rows), on
        which the model so depends; a dbt unit test pins its columns and
        reads stg_points' fixture rows. -#}
    {%- if not execute or config.get('materialized') != 'unit' -%}
        {%- do ref('raw_chunks') -%}
        {%- do source('tsdedup_runs', 'retracted_chunks') -%}
    {%- endif -%}
    {%- set sort_keys_relation = ref('sort_keys') -%}
    {%- set catalog_relation = ref('sort_key_catalog') -%}
    {%- set incremental = is_incremental() -%}
    {%- set state = tsdedup.read_measurement_state(this) if incremental else none -%}
    {%- if state is not none and state['watermark'] is not none and state['series_hash_column'] != 'series_hash' -%}
        {#- Recorded before rows carried their series hash: rebuilt once from
            the raw log, which the materialization sees in the write mode. -#}
        {{ log("tsdedup: " ~ this ~ " was written before rows carried their series hash: rebuilding it from the raw log once", info=True) }}
        {%- set incremental = false -%}
        {%- set state = none -%}
    {%- endif -%}
    {%- set watermark = state['watermark'] if state is not none else none -%}
    {#- Where the logs stood when the run planned: the state record takes its
        watermark from them (planned_log_heads). -#}
    {%- set heads = none -%}
    {%- if watermark is not none -%}
        {#- Nothing landed for the measurement and nothing was retracted: one
            query says so, and the run writes nothing. When the table is
            still at its recorded snapshot, the state record stays as it is
            (its watermark, and with it the live view's SQL, moves only when
            the table does). -#}
        {%- set heads = tsdedup.log_heads(measurement_name, watermark) -%}
        {%- if heads['new_catalog_rows'] == 0 and heads['new_columns'] == 0
            and heads['retraction_seq'] == state['retraction_seq'] -%}
            {%- set record_current = state['written_snapshot_id'] == state['snapshot_id'] -%}
            {{ log("tsdedup: " ~ measurement_name ~ ": no new points after chunk " ~ watermark, info=True) }}
            {{ return(
                "/* tsdedup write mode: none" ~ ("; state record current" if record_current else "") ~ " */\n"
                ~ tsdedup.log_heads_comment(heads) ~ "\n"
                ~ "-- no point, column or retraction after chunk " ~ watermark ~ ": nothing to write\n"
                ~ "select * from " ~ this ~ " where false\n"
            ) }}
        {%- endif -%}
    {%- elif execute and config.get('materialized') != 'unit' -%}
        {#- A rebuild, or a table without a watermark: the logs' heads only. -#}
        {%- set heads = tsdedup.log_heads() -%}
        {%- if heads['chunk_seq'] == 0 -%}
            {#- An empty chunk catalog: nothing bounds the read (the raw log is
                read whole, as the catalog has not been built yet). -#}
            {%- set heads = none -%}
        {%- endif -%}
    {%- endif -%}
    {%- do tsdedup.require_current_column_catalog(measurement_name, watermark or 0) -%}
    {#- Something is new: the columns, the new chunks' column rows and the
        days they touch, in one query (new_chunk_days, decision 0036). -#}
    {%- set planned = tsdedup.new_chunk_days(measurement_name, watermark) if watermark is not none
        else {'columns': none, 'layout_rows': none, 'days': none} -%}
    {%- set columns = tsdedup.measurement_columns(measurement_name, planned['columns']) -%}
    {%- if execute and not columns['fields'] -%}
        {{ log("tsdedup: measurement '" ~ measurement_name ~ "' has no points yet", info=True) }}
    {%- endif -%}

    {#- Which chunks this run merges: all of them, or those after the table's watermark. #}
    {%- set merge = namespace(active=false, after_chunk=0, days=[], match_days=[], key_times=none, stored_columns={}, missing_columns=[], mode='rebuild') -%}
    {%- if incremental -%}
        {%- set watermark = state['watermark'] -%}
        {%- if watermark is none -%}
            {#- A run that died between creating the table and recording its
                watermark: merging every chunk again into what the table holds
                gives the same result as the run would have. -#}
            {{ log("tsdedup: " ~ this ~ " has no watermark (tsdedup.last_chunk_seq; a run stopped before recording it): merging every chunk into it", info=True) }}
            {%- set watermark = 0 -%}
        {%- endif -%}
        {%- set plan = tsdedup.plan_measurement_write(this, catalog_relation, measurement_name, watermark, state, columns['tags'], planned['days'], planned['layout_rows']) -%}
        {%- set merge.active = true -%}
        {%- set merge.after_chunk = watermark -%}
        {#- Without a recorded watermark the table may hold any chunk: overwrite
            the touched partitions rather than merge row by row. -#}
        {%- set merge.mode = 'overwrite' if plan['mode'] == 'merge' and watermark == 0 else plan['mode'] -%}
        {%- set merge.days = plan['days'] -%}
        {%- set merge.match_days = plan['overlapping_days'] -%}
        {%- set merge.key_times = plan['key_times'] -%}
        {%- for column in adapter.tsdedup_columns(this) -%}
            {%- do merge.stored_columns.update({column.name: column.dtype}) -%}
        {%- endfor -%}
        {#- The tags and fields the table lacks: with none, the run adds no
            column (stored_columns_comment). -#}
        {%- set merge.missing_columns = (columns['tags'] + columns['fields'] | map(attribute='name') | list)
            | reject('in', merge.stored_columns) | list -%}
        {#- No retraction since the table's last: no day to rebuild, and no query. -#}
        {%- set retracted_days = [] if heads is not none and heads['retraction_seq'] == state['retraction_seq']
            else tsdedup.retracted_days(catalog_relation, measurement_name, watermark, state['retraction_seq']) -%}
        {%- if retracted_days -%}
            {#- Retracted chunks had points in these days: they are rebuilt from
                the raw log, with the days the new chunks touch. -#}
            {%- set merge.days = (merge.days + retracted_days) | unique | sort | list -%}
            {%- set merge.mode = 'replace' -%}
            {{ log("tsdedup: " ~ measurement_name ~ ": rebuilding " ~ merge.days | length
                ~ " day partition(s) from the raw log (" ~ retracted_days | length
                ~ " held points of retracted chunks)", info=True) }}
        {%- elif not merge.days -%}
            {{ log("tsdedup: " ~ measurement_name ~ ": no new points after chunk " ~ watermark, info=True) }}
            {#- Nothing to write, unless a column the table lacks must be added. -#}
            {%- if not merge.missing_columns -%}
                {%- set merge.mode = 'none' -%}
            {%- endif -%}
        {%- elif merge.mode == 'append' -%}
            {{ log("tsdedup: " ~ measurement_name ~ ": appending the chunks after chunk " ~ watermark
                ~ " to " ~ merge.days | length ~ " day partition(s); no stored data overlaps them in time"
                ~ (" or, by their series hashes, in keys" if plan['key_checked_days'] else ""), info=True) }}
        {%- else -%}
            {{ log("tsdedup: " ~ measurement_name ~ ": merging the chunks after chunk " ~ watermark
                ~ " into " ~ merge.days | length ~ " day partition(s) (" ~ plan['overlapping_days'] | length
                ~ " may hold their keys; " ~ ("row by row" if merge.mode == 'merge' else "overwriting the touched partitions")
                ~ (", stored keys not asked: the table's last write replaced stored rows" if plan['keys_not_asked'] else "")
                ~ ")", info=True) }}
        {%- endif -%}
    {%- endif -%}

    {%- set tag_columns = tsdedup.quote_identifiers(columns['tags']) -%}
    {%- set field_columns = tsdedup.quote_identifiers(columns['fields'] | map(attribute='name') | list) -%}
    {%- set shared_key = none -%}
    {%- set catalog_days = planned['days'] -%}
    {%- if columns['tags'] and merge.active and catalog_days is not none
        and merge.days | reject('in', catalog_days | map(attribute='day') | list) | list | length == 0 -%}
        {#- The days' sort keys after the last new chunk, from the chunk catalog
            rows new_chunk_days read: sort_keys' own rule (decision 0036). -#}
        {%- set keys = [] -%}
        {%- for day in catalog_days if day['day'] in merge.days -%}
            {%- do keys.append(day['partition_key']) -%}
        {%- endfor -%}
        {%- if keys and keys | map('tojson') | unique | list | length == 1 -%}
            {%- set shared_key = keys[0] | reject('equalto', 'time') | select('in', columns['tags']) | list -%}
        {%- endif -%}
    {%- elif columns['tags'] -%}
        {%- set shared_key = tsdedup.shared_sort_key(sort_keys_relation, measurement_name, columns['tags'], merge.days if merge.active else none) -%}
    {%- endif -%}
    {%- if merge.mode == 'merge' and columns['tags'] and shared_key is none -%}
        {#- A row-level merge writes its rows in the table's write order, one order
            for every day it touches: with different keys per day, overwrite. -#}
        {{ log("tsdedup: " ~ measurement_name ~ ": the day partitions differ in sort key; overwriting them instead of a row-level merge", info=True) }}
        {%- set merge.mode = 'overwrite' -%}
    {%- endif -%}

{#- Which maps' keys each point is tested for (a column the catalog lists
    with another type or spelling leaves the point out): all of them, except
    in a full rebuild, which tests only the maps whose column type some chunk
    writes in conflict (conflicting_column_types). That test reads every point's
    map, and most raw logs have no conflict at all. -#}
{%- set column_types = tsdedup.column_types() | list -%}
{%- set key_tests = column_types -%}
{#- Where the points read keep their values (decision 0025): in flat columns
    of the raw log when every chunk read has them (the common case), which a
    scan reads many times faster than maps. A point that writes a column with
    another type or spelling than the catalog's has a value in that pair's
    flat column, and is left out by it. -#}
{%- set layout = none -%}
{%- set conflicting = [] -%}
{%- if merge.active and merge.mode != 'replace' and 'layout' in plan -%}
    {%- set layout = plan['layout'] -%}
{%- elif merge.mode != 'none' and merge.active and merge.mode != 'replace' -%}
    {%- set layout = tsdedup.point_layout(measurement_name, merge.after_chunk, planned['layout_rows']) -%}
{%- elif merge.mode != 'none' -%}
    {%- set layout = tsdedup.point_layout(measurement_name, 0) -%}
{%- endif -%}
{%- if layout is not none -%}
    {%- set established = {'tag': columns['tags']} -%}
    {%- for field in columns['fields'] -%}
        {%- do established.setdefault(field.type, []).append(field.name) -%}
    {%- endfor -%}
    {%- for column_type, flat_columns in layout | dictsort -%}
        {%- for name, flat_column in flat_columns | dictsort if name not in established.get(column_type, []) -%}
            {%- do conflicting.append(flat_column) -%}
        {%- endfor -%}
    {%- endfor -%}
{%- elif execute and not merge.active and measurement_name not in var('tsdedup_columns', {}) -%}
    {%- set key_tests = tsdedup.conflicting_column_types(measurement_name) -%}
{%- endif -%}
{#- A rebuild that reads flat columns reads the raw log's day partitions in
    place when it can (decision 0034): the day, row kind and measurement come
    from the scan as they are, so Spark sees the window's rows already
    clustered by partition and exchanges none of them. -#}
{%- set in_place = merge.mode == 'rebuild' and layout is not none and tsdedup.day_grouped_read(measurement_name) -%}

/* tsdedup write mode: {{ merge.mode }}
{%- if merge.mode == 'merge' %}, winner rule: {{ mode }}, days: {{ merge.match_days | join(' ') }}
{%- if merge.key_times %}, key times: {{ merge.key_times[0] }} to {{ merge.key_times[1] }}{% endif %}{% endif %}
{%- if merge.mode == 'replace' %}, days: {{ merge.days | join(' ') }}{% endif %}
{%- if merge.mode in ['merge', 'replace'] %}, tags: {{ tsdedup.comment_json({'names': columns['tags'], 'sort key': shared_key}) }}{% endif %} */
{%- if heads is not none %}
{{ tsdedup.log_heads_comment(heads) }}
{%- endif %}
{%- if in_place %}
{{ tsdedup.day_grouped_comment() }}
{%- endif %}
{%- if merge.active and plan['key_checked_days'] %}
{{ tsdedup.key_check_comment(plan['overlapping_days'] | length > 0) }}
{%- endif %}
{%- if merge.active and merge.mode != 'none' and not merge.missing_columns %}
{{ tsdedup.stored_columns_comment() }}
{%- endif %}
with new_points as (
    {#- Points of this measurement whose every column has the established type:
        their place in ingestion order, their values in the struct `point`, and
        their day partition. #}
    {%- set p = 'p.' if layout is not none else '' %}
    select
        {{ tsdedup.ingestion_order(p ~ 'chunk_seq', p ~ 'position') }} as ingestion_order,
        struct(
            {{ tsdedup._new_point_items(columns, 'p' if layout is not none else '', layout) | join(',\n            ') }}
        ) as point,
        {%- if in_place %}
        p.partition_day,
        p.row_kind,
        p.measurement
        {%- else %}
        to_date({{ tsdedup.time_from_ns(p ~ 'time_ns') }}) as partition_day
        {%- endif %}
    {%- if layout is none %}
    from {{ points_relation }}
    where
        measurement = {{ tsdedup.string_literal(measurement_name) }}
    {%- else %}
    {#- stg_points' rows, with the flat columns its view does not list. #}
    {{ tsdedup.point_rows(measurement_name, layout) }}
    {%- endif %}
        {%- if merge.mode == 'replace' %}
        {#- Every point of the days rebuilt, whatever its chunk. #}
        and (
            {{ tsdedup.day_predicates(p ~ 'time_ns', merge.days, nanoseconds=true, separator='\n            or ') }}
        )
        {%- elif merge.active %}
        and {{ p }}chunk_seq > {{ merge.after_chunk }}
        {%- endif %}
        {%- if heads is not none %}
        -- the chunks the catalog lists: the table holds none after its watermark (decision 0036)
        and {{ p }}chunk_seq <= {{ heads['chunk_seq'] }}
        {%- endif %}
        {%- if layout is not none %}
        {%- if conflicting %}
        -- a column with another type or spelling than the catalog's leaves its point out
        {%- endif %}
        {%- for flat_column in conflicting %}
        and p.{{ tsdedup.quote_identifier(flat_column) }} is null
        {%- endfor %}
        {%- else %}
        {%- if key_tests | length < column_types | length %}
        -- no chunk writes a {{ column_types | reject('in', key_tests) | join(', ') }} column with another type or spelling than the catalog's: those maps need no key test
        {%- endif %}
        {%- if 'tag' in key_tests %}
        and {{ tsdedup._only_established_keys('tags', columns['tags']) }}
        {%- endif %}
        {%- for type_name in column_types[1:] if type_name in key_tests %}
        {%- set names = [] %}
        {%- for field in columns['fields'] if field.type == type_name %}{% do names.append(field.name) %}{% endfor %}
        and {{ tsdedup._only_established_keys(tsdedup.field_map_column(type_name), names) }}
        {%- endfor %}
        {%- endif %}
),
{%- if merge.mode == 'overwrite' %}

stored_points as (
    {#- What the table holds in the day partitions the new chunks touch; it comes
        before every new chunk in ingestion order. #}
    select
        0 as ingestion_order,
        struct(
            {{ tsdedup._stored_point_items(columns, merge.stored_columns, 'stored') | join(',\n            ') }}
        ) as point,
        to_date(stored.`time`) as partition_day
    from {{ this }} as stored
    where
        {{ tsdedup.day_predicates('stored.`time`', merge.days, separator='\n        or ') }}
),

points as (
    select * from stored_points
    union all
    select * from new_points
),
{%- else %}

points as (
    select * from new_points
),
{%- endif %}

{#- The key in the order rows are written: the day, the shared sort key's tags,
    the other tags, time_ns. The dedup sorts by it, so the final `sort by` on a
    prefix of it is free (decision 0024). #}
{%- set key_tags = tsdedup.quote_identifiers(shared_key or []) -%}
{%- set key_tags = key_tags + tag_columns | reject('in', key_tags) | list %}

deduplicated as (
    {{ tsdedup.deduplicate_points(
        'points',
        key_tags + ['time_ns'],
        field_columns,
        ['ingestion_order'],
        mode,
        hidden_keys=['partition_day'],
        clustered_by=['row_kind', 'measurement'] if in_place else [],
    ) | indent(4) }}
)

{%- if columns['tags'] and shared_key is none %},

partition_keys as (
    {#- The sort key of each day partition, without `time` (time_ns sorts last). #}
    select
        partition_day,
        filter(partition_key, column_name -> column_name != 'time') as key_tags
    from {{ sort_keys_relation }}
    where measurement = {{ tsdedup.string_literal(measurement_name) }}
)
{%- endif %}

{%- set known = columns['tags'] + columns['fields'] | map(attribute='name') | list + ['time', 'time_ns', 'series_hash'] %}

select
    {%- for column in tag_columns + field_columns %}
    d.point.{{ column }},
    {%- endfor %}
    {%- for column in merge.stored_columns if column not in known %}
    {#- A column only retracted chunks wrote: the table keeps it, empty. #}
    cast(null as {{ merge.stored_columns[column] }}) as {{ tsdedup.quote_identifier(column) }},
    {%- endfor %}
    {{ tsdedup.time_from_ns('d.point.time_ns') }} as `time`,
    d.point.time_ns
    {%- if merge.mode not in ['merge', 'replace'] %},
    {{ tsdedup.series_hash(columns['tags'], 'd.point.') }} as series_hash
    {%- endif %}
from deduplicated as d
{#- Each task sorts its rows by day, then the day partition's sort key, so every
    data file is written sorted: a local sort, without the range exchange and
    sampling job a global order by costs (decision 0006). #}
{%- if shared_key is not none %}
{#- Every day written has the same sort key: sort by the columns themselves. #}
sort by
    d.partition_day,
    {%- for tag in shared_key %}
    d.point.{{ tsdedup.quote_identifier(tag) }},
    {%- endfor %}
    d.point.time_ns
{%- elif columns['tags'] %}
left join partition_keys as k
    on d.partition_day = k.partition_day
sort by
    k.partition_day,
    transform(k.key_tags, tag -> case tag
        {%- for tag in columns['tags'] %}
        when {{ tsdedup.string_literal(tag) }} then d.point.{{ tsdedup.quote_identifier(tag) }}
        {%- endfor %}
    end),
    d.point.time_ns
{%- else %}
sort by d.partition_day, d.point.time_ns
{%- endif %}
{% endmacro %}
