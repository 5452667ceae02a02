{#
    The SQL of a live view (live_measurement) that reads the chunks after
    `watermark`.
#}
{% macro _live_view_sql(table, measurement_name, mode, columns, stored_columns, watermark) %}
    {%- set points_relation = ref('int_accepted_points') -%}
    {%- set tag_columns = tsdedup.quote_identifiers(columns['tags']) -%}
    {%- set field_columns = tsdedup.quote_identifiers(columns['fields'] | map(attribute='name') | list) -%}
    {%- set no_tags = 'cast(array() as array<struct<key: string, value: string>>)' -%}

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
    -- the chunks after chunk {{ watermark }}, the table's watermark when this view was built
    {#- (without type conflicts) #}
    {%- set unlisted = 'p.tags' if not columns['tags'] else 'map_filter(p.tags, (k, v) -> not k in ' ~ tsdedup.string_list(columns['tags']) ~ ')' %}
    select
        {{ tsdedup.ingestion_order('p.chunk_seq', 'p.position') }} as ingestion_order,
        struct(
            {{ tsdedup._new_point_items(columns, 'p') | join(',\n            ') }}
        ) as point,
        sort_array(map_entries({{ unlisted }})) as unlisted_tags
    from {{ points_relation }} as p
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
{% endmacro %}
