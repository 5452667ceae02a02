{#
    One `point` per key in which every field holds its last non-null value in
    ingestion order (InfluxDB upsert semantics): a point that omits a field does
    not erase it. `max_by` ignores rows whose ordering is NULL, so each field's
    ordering is NULL where the field is NULL. GROUP BY treats NULL tags as equal.
    Deterministic: the ingestion order is unique, so there are no ties.
    `hidden_keys` group too but are left out of the result.

    `order_by` lists the ordering expressions, earliest first; a single one (such
    as a precomputed ingestion_order()) is used as it is, several are compared as
    a struct.
#}
{% macro merge_last_non_null(relation, key_columns, field_columns, order_by, hidden_keys=[]) %}
    {{ return(adapter.dispatch('merge_last_non_null', 'tsdedup')(relation, key_columns, field_columns, order_by, hidden_keys)) }}
{% endmacro %}

{% macro default__merge_last_non_null(relation, key_columns, field_columns, order_by, hidden_keys=[]) %}
    {%- set ordering = order_by[0] if order_by | length == 1 else 'struct(' ~ order_by | join(', ') ~ ')' -%}
    {%- set items = [] -%}
    {%- for key in key_columns -%}
        {%- do items.append('point.' ~ key ~ ' as ' ~ key) -%}
    {%- endfor -%}
    {%- for field in field_columns -%}
        {%- set value = 'point.' ~ field -%}
        {%- do items.append('max_by(' ~ value ~ ', if(' ~ value ~ ' is null, null, ' ~ ordering ~ ')) as ' ~ field) -%}
    {%- endfor -%}
    {%- set lines = [
        'select',
        '    struct(',
        '        ' ~ items | join(',\n        '),
        '    ) as point',
        'from ' ~ relation,
        'group by ' ~ tsdedup._point_keys(key_columns, hidden_keys) | join(', '),
    ] -%}
    {{ return(lines | join('\n')) }}
{% endmacro %}
