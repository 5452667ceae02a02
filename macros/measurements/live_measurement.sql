{#
    The body of a live view: a measurement's deduplicated points as of now, for
    users who ingest often and merge rarely.

        -- models/live/h2o_live.sql
        {{ tsdedup.live_measurement(ref('h2o')) }}

    The view unions the measurement table (merged data, first in ingestion order)
    with the points of the chunks ingested after the table's watermark, and
    deduplicates them on the fly under the table's winner rule (IOx's querier:
    compacted data plus not-yet-compacted chunks). So `count(*)` never counts a
    duplicate, and a filter on a field sees the merged point: Spark cannot push
    it below the deduplication.

    The watermark is the table's when the view was built. The table only moves
    forward, and re-applying chunks it already holds changes nothing, so the
    view stays correct until it is rebuilt; it just reads more chunks. Points of
    not-yet-merged chunks with a tag the view has no column for are kept apart
    by that tag (a different series) until the view is rebuilt and shows it; a
    field the view does not know yet is not shown; type conflicts are left out,
    as in the table.
#}
{% macro live_measurement(table) %}
    {%- set points_relation = ref('stg_points') -%}
    {%- set conflicts_relation = ref('int_type_conflicts') -%}
    {%- do ref('int_column_types') -%} {#- read by measurement_columns #}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- set state = tsdedup.read_measurement_state(table) -%}
    {%- if state['measurement'] is none or state['watermark'] is none -%}
        {% do exceptions.raise_compiler_error("tsdedup.live_measurement: " ~ table ~ " is not a measurement table built by tsdedup.measurement (it has no tsdedup.measurement property); build it first") %}
    {%- endif -%}
    {%- set measurement_name = state['measurement'] -%}
    {%- set mode = state['dedup_mode'] or 'fields' -%}
    {%- set watermark = state['watermark'] -%}
    {%- set columns = tsdedup.measurement_columns(measurement_name) -%}
    {%- set stored_columns = [] -%}
    {%- for column in adapter.get_columns_in_relation(table) -%}
        {%- do stored_columns.append(column.name) -%}
    {%- endfor -%}
    {%- set tag_columns = tsdedup.quote_identifiers(columns['tags']) -%}
    {%- set field_columns = tsdedup.quote_identifiers(columns['fields'] | map(attribute='name') | list) -%}
    {%- set no_tags = 'cast(array() as array<struct<key: string, value: string>>)' -%}
    {%- set sql -%}

with merged_points as (
    select
        0 as ingestion_order,
        struct(
            {{ tsdedup._stored_point_items(columns, stored_columns, 'merged') | join(',\n            ') }}
        ) as point,
        {{ no_tags }} as unlisted_tags
    from {{ table }} as merged
),

unmerged_points as (
    {#- Chunks after the table's watermark (chunk {{ watermark }}), without type conflicts. #}
    {%- set unlisted = 'p.tags' if not columns['tags'] else 'map_filter(p.tags, (k, v) -> not k in ' ~ tsdedup.string_list(columns['tags']) ~ ')' %}
    select
        {{ tsdedup.ingestion_order('p.chunk_seq', 'p.position') }} as ingestion_order,
        struct(
            {{ tsdedup._new_point_items(columns, 'p') | join(',\n            ') }}
        ) as point,
        sort_array(map_entries({{ unlisted }})) as unlisted_tags
    from {{ points_relation }} as p
    left anti join {{ conflicts_relation }} as c
        on p.chunk_seq = c.chunk_seq and p.position = c.position
    where
        p.measurement = {{ tsdedup.string_literal(measurement_name) }}
        and p.chunk_seq > {{ watermark }}
),

points as (
    select
        ingestion_order,
        point,
        unlisted_tags
    from merged_points

    union all

    select
        ingestion_order,
        point,
        unlisted_tags
    from unmerged_points
),

deduplicated as (
    {{ tsdedup.deduplicate_points(
        'points',
        tag_columns + ['time_ns'],
        field_columns,
        ['ingestion_order'],
        mode,
        hidden_keys=['unlisted_tags'],
    ) | indent(4) }}
)

select
    {%- for column in tag_columns + field_columns %}
    point.{{ column }},
    {%- endfor %}
    {{ tsdedup.time_from_ns('point.time_ns') }} as `time`,
    point.time_ns
from deduplicated
{%- endset -%}
    {%- set limit = var('tsdedup_max_view_text', 32700) -%}
    {%- if limit and sql | length > limit | int -%}
        {% do exceptions.raise_compiler_error(
            "tsdedup.live_measurement: the live view of " ~ table ~ " (" ~ (columns['tags'] | length)
            ~ " tags, " ~ (columns['fields'] | length) ~ " fields) is " ~ (sql | length)
            ~ " characters of SQL, more than the metastore keeps of a view's text (var tsdedup_max_view_text: "
            ~ limit ~ ", the embedded Derby metastore's limit). The table itself is complete; query it "
            ~ "instead, disable this live view, or use a metastore without the limit and set "
            ~ "tsdedup_max_view_text to null") %}
    {%- endif -%}
    {{ return(sql) }}
{% endmacro %}
