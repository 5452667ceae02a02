{#
    The body of a measurement model: the measurement's points, deduplicated.

        -- models/measurements/h2o.sql
        {{ tsdedup.measurement('h2o') }}

    Columns: one per tag (string), one per field (its type), `time` (timestamp,
    microseconds) and `time_ns` (the exact nanosecond key). Tags and fields are
    discovered from the data; a point that writes a column with another type than
    the measurement's established one is left out (see int_type_conflicts).
    `dedup_mode` overrides var('tsdedup_dedup_mode'): 'fields' or 'last_row'.
#}
{% macro measurement(measurement_name, dedup_mode=none) %}
    {%- if measurement_name is not string or measurement_name | length == 0 -%}
        {% do exceptions.raise_compiler_error("tsdedup.measurement: pass the measurement name as a non-empty string") %}
    {%- endif -%}
    {%- set mode = dedup_mode or var('tsdedup_dedup_mode', 'fields') -%}
    {%- do tsdedup.validate_dedup_mode(mode) -%}
    {%- set points_relation = ref('stg_points') -%}
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

select
    {%- for column in tag_columns + field_columns %}
    {{ column }},
    {%- endfor %}
    {{ tsdedup.time_from_ns('time_ns') }} as `time`,
    time_ns
from deduplicated
{% endmacro %}
