{#
    One `point` per key (the key columns and `hidden_keys`, NULL equal to
    NULL), the winner by ingestion order `order_by`: per field the last
    non-null value ('fields') or the whole last row ('last_row'). Arguments:
    _dedup__macros.yml; the one window over the key: decisions 0013, 0024;
    `clustered_by`: decision 0034.
#}
{% macro deduplicate_points(relation, key_columns, field_columns, order_by, mode='fields', hidden_keys=[], clustered_by=[]) %}
    {%- do tsdedup.validate_dedup_mode(mode) -%}
    {%- if not key_columns -%}
        {% do exceptions.raise_compiler_error("deduplicate_points: `key_columns` must list at least the time column") %}
    {%- endif -%}
    {%- for column in order_by + hidden_keys + clustered_by if not modules.re.match('^[A-Za-z_][A-Za-z0-9_]*$', column) -%}
        {% do exceptions.raise_compiler_error("deduplicate_points: `order_by`, `hidden_keys` and `clustered_by` name columns of the relation beside `point`; got '" ~ column ~ "'") %}
    {%- endfor -%}
    {%- set keys = [] -%}
    {%- for column in key_columns -%}
        {%- do keys.append({'name': column, 'alias': 'key_' ~ loop.index}) -%}
    {%- endfor -%}
    {%- set fields = [] -%}
    {%- for column in field_columns -%}
        {%- do fields.append({'name': column, 'alias': 'field_' ~ loop.index}) -%}
    {%- endfor -%}
    {%- set merged = mode == 'fields' and fields -%}
    {%- set partition = 'partition by ' ~ (hidden_keys + keys | map(attribute='alias') | list + clustered_by) | join(', ') -%}
    {%- set newest_first = 'order by ' ~ tsdedup._descending(order_by) -%}

    {%- set lines = ['select', '    struct('] -%}
    {%- set items = [] -%}
    {%- for column in keys + fields -%}
        {%- do items.append('        ' ~ column.alias ~ ' as ' ~ column.name) -%}
    {%- endfor -%}
    {%- do lines.append(items | join(',\n')) -%}
    {%- do lines.append('    ) as point' ~ (',' if hidden_keys else '')) -%}
    {%- for key in hidden_keys -%}
        {%- do lines.append('    ' ~ key ~ (',' if not loop.last else '')) -%}
    {%- endfor -%}
    {%- do lines.extend(['from (', '    select']) -%}
    {%- set ranked = hidden_keys + keys | map(attribute='alias') | list + ['row_number() over newest_first as ingest_rank'] -%}
    {%- for field in fields -%}
        {%- if merged -%}
            {%- do ranked.append('first(point.' ~ field.name ~ ', true) over whole_key as ' ~ field.alias) -%}
        {%- else -%}
            {%- do ranked.append('point.' ~ field.name ~ ' as ' ~ field.alias) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- do lines.append('        ' ~ ranked | join(',\n        ')) -%}
    {#- No `select *`: a view that selects `*` is created again on every run (view_is_current). -#}
    {%- do lines.extend(['    from (', '        select']) -%}
    {%- for column in order_by + hidden_keys + clustered_by + ['point'] -%}
        {%- do lines.append('            ' ~ column ~ ',') -%}
    {%- endfor -%}
    {%- for key in keys -%}
        {%- do lines.append('            point.' ~ key.name ~ ' as ' ~ key.alias ~ (',' if not loop.last else '')) -%}
    {%- endfor -%}
    {%- do lines.extend([
        '        from ' ~ relation,
        '    ) as keyed',
        '    window',
        '        newest_first as (' ~ partition ~ ' ' ~ newest_first ~ ')' ~ (',' if merged else ''),
    ]) -%}
    {%- if merged -%}
        {%- do lines.extend([
            '        whole_key as (',
            '            ' ~ partition,
            '            ' ~ newest_first,
            '            rows between unbounded preceding and unbounded following',
            '        )',
        ]) -%}
    {%- endif -%}
    {%- do lines.extend([') as ranked', 'where ingest_rank = 1']) -%}
    {{ return(lines | join('\n')) }}
{% endmacro %}
