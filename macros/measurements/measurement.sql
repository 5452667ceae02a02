{#
    The body of a measurement model: the measurement's points, deduplicated.

        -- models/measurements/h2o.sql
        {{ tsdedup.measurement('h2o') }}

    Columns: one per tag (string), one per field (its type), `time` (timestamp,
    microseconds) and `time_ns` (the exact nanosecond key). Tags and fields are
    discovered from the data; a point that writes a column with another type than
    the measurement's established one is left out (see int_type_conflicts).
    `dedup_mode` overrides var('tsdedup_dedup_mode'): 'fields' or 'last_row'.
    Rows are written day by day in each day partition's sort key (sort_keys).
#}
{% macro measurement(measurement_name, dedup_mode=none) %}
    {%- if measurement_name is not string or measurement_name | length == 0 -%}
        {% do exceptions.raise_compiler_error("tsdedup.measurement: pass the measurement name as a non-empty string") %}
    {%- endif -%}
    {%- set mode = dedup_mode or var('tsdedup_dedup_mode', 'fields') -%}
    {%- do tsdedup.validate_dedup_mode(mode) -%}
    {%- set points_relation = ref('stg_points') -%}
    {%- set sort_keys_relation = ref('sort_keys') -%}
    {%- set columns = tsdedup.measurement_columns(measurement_name) -%}
    {%- if execute and not columns['fields'] -%}
        {{ log("tsdedup: measurement '" ~ measurement_name ~ "' has no points yet", info=True) }}
    {%- endif -%}

    {%- set tag_columns = [] -%}
    {%- for tag in columns['tags'] -%}
        {%- do tag_columns.append(tsdedup.quote_identifier(tag)) -%}
    {%- endfor -%}
    {%- set field_columns = [] -%}
    {%- for field in columns['fields'] -%}
        {%- do field_columns.append(tsdedup.quote_identifier(field.name)) -%}
    {%- endfor -%}

with points as (
    {#- Points of this measurement whose every column has the established type. #}
    {%- set items = ['chunk_seq', 'position', 'time_ns'] %}
    {%- for tag in columns['tags'] %}
        {%- do items.append('tags[' ~ tsdedup.string_literal(tag) ~ '] as ' ~ tsdedup.quote_identifier(tag)) %}
    {%- endfor %}
    {%- for field in columns['fields'] %}
        {%- do items.append(tsdedup.field_map_column(field.type) ~ '[' ~ tsdedup.string_literal(field.name) ~ '] as ' ~ tsdedup.quote_identifier(field.name)) %}
    {%- endfor %}
    select
        {{ items | join(',\n        ') }}
    from {{ points_relation }}
    where
        measurement = {{ tsdedup.string_literal(measurement_name) }}
        and {{ tsdedup._only_established_keys('tags', columns['tags']) }}
        {%- for type_name in ['float', 'integer', 'unsigned', 'string', 'boolean'] %}
        {%- set names = [] %}
        {%- for field in columns['fields'] if field.type == type_name %}{% do names.append(field.name) %}{% endfor %}
        and {{ tsdedup._only_established_keys(tsdedup.field_map_column(type_name), names) }}
        {%- endfor %}
),

deduplicated as (
    {{ tsdedup.deduplicate_points(
        'points',
        tag_columns + ['time_ns'],
        field_columns,
        ['chunk_seq', 'position'],
        mode,
    ) | indent(4) }}
)

{%- if tag_columns %},

partition_keys as (
    {#- The sort key of each day partition, without `time` (time_ns sorts last). #}
    select
        partition_day,
        filter(partition_key, column_name -> column_name != 'time') as key_tags
    from {{ sort_keys_relation }}
    where measurement = {{ tsdedup.string_literal(measurement_name) }}
)
{%- endif %}

select
    {%- for column in tag_columns + field_columns %}
    d.{{ column }},
    {%- endfor %}
    {{ tsdedup.time_from_ns('d.time_ns') }} as `time`,
    d.time_ns
from deduplicated as d
{%- if tag_columns %}
left join partition_keys as k
    on to_date({{ tsdedup.time_from_ns('d.time_ns') }}) = k.partition_day
{#- Each day's rows in its partition sort key's order, so data files are written sorted. #}
order by
    k.partition_day,
    transform(k.key_tags, tag -> case tag
        {%- for tag in columns['tags'] %}
        when {{ tsdedup.string_literal(tag) }} then d.{{ tsdedup.quote_identifier(tag) }}
        {%- endfor %}
    end),
    d.time_ns
{%- else %}
order by d.time_ns
{%- endif %}
{% endmacro %}
