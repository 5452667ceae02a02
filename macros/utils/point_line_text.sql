{#
    A stg_points row (alias `p`) written back as a line of line protocol:
    measurement, its tags and fields in name order, the timestamp in
    nanoseconds. For rejects found after parsing (type conflicts), whose
    original line is not kept; names and string values are shown unescaped.
#}
{% macro point_line_text(p) %}
    {%- set no_text = 'cast(array() as array<string>)' -%}
    {%- set fields = [] -%}
    {%- for map_column, value in [
        ('fields_float', "cast(e.value as string)"),
        ('fields_int', "concat(cast(e.value as string), 'i')"),
        ('fields_uint', "concat(cast(e.value as string), 'u')"),
        ('fields_string', "concat('\"', e.value, '\"')"),
        ('fields_bool', "cast(e.value as string)"),
    ] -%}
        {%- do fields.append('coalesce(transform(map_entries(' ~ p ~ '.' ~ map_column ~ "), e -> concat(e.key, '=', " ~ value ~ ')), ' ~ no_text ~ ')') -%}
    {%- endfor -%}
    {%- set tags = 'coalesce(transform(array_sort(map_entries(' ~ p ~ ".tags)), e -> concat(',', e.key, '=', e.value)), " ~ no_text ~ ')' -%}
    {%- set lines = [
        'concat(',
        '    ' ~ p ~ '.measurement,',
        "    array_join(" ~ tags ~ ", ''),",
        "    ' ',",
        '    array_join(array_sort(concat(',
        '        ' ~ fields | join(',\n        '),
        "    )), ','),",
        "    ' ',",
        '    ' ~ p ~ '.time_ns',
        ')',
    ] -%}
    {{ return(lines | join('\n')) }}
{% endmacro %}
