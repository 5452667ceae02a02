{#
    The 64-bit key of a point: xxhash64 of its tag entries sorted by name (the
    series; an absent tag is no entry, so NULL equals NULL) and its time_ns. The
    same for a point of stg_points (`tags` map) and a row of a measurement table
    (one column per tag), whatever columns the table has. Two keys may share a
    hash; the index only ever says "may exist", which costs a merge, never a
    point. An absent tag column is a NULL element, which xxhash64 skips; no
    lambda (decision 0023).

        tsdedup.key_hash(tags_map='p.tags')            -- a point
        tsdedup.key_hash(tag_columns=['host', 'rack'])  -- a table row
        tsdedup.key_hash(tag_expressions={'host': 'p.`tag__host`'})  -- flat columns
#}
{% macro key_hash(tags_map=none, tag_columns=none, time_column='time_ns', tag_expressions=none) %}
    {%- set no_tags = 'cast(array() as array<struct<key: string, value: string>>)' -%}
    {%- set expressions = dict(tag_expressions or {}) -%}
    {%- for tag in tag_columns or [] -%}
        {%- do expressions.update({tag: tsdedup.quote_identifier(tag)}) -%}
    {%- endfor -%}
    {%- if tags_map is not none -%}
        {%- set entries = 'coalesce(sort_array(map_entries(' ~ tags_map ~ ')), ' ~ no_tags ~ ')' -%}
    {%- elif expressions -%}
        {%- set items = [] -%}
        {%- for tag in expressions.keys() | sort(case_sensitive=true) -%}
            {%- set column = expressions[tag] -%}
            {%- do items.append('if(' ~ column ~ ' is null, null, named_struct(\'key\', ' ~ tsdedup.string_literal(tag) ~ ', \'value\', ' ~ column ~ '))') -%}
        {%- endfor -%}
        {%- set entries = 'array(' ~ items | join(', ') ~ ')' -%}
    {%- else -%}
        {%- set entries = no_tags -%}
    {%- endif -%}
    {{ return('xxhash64(' ~ entries ~ ', ' ~ time_column ~ ')') }}
{% endmacro %}
