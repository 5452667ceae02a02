{#
    The sort-key catalog agrees with a measurement table: the tags in its
    partition keys are exactly the table's tag columns, as the table really is
    (read from the warehouse, not from the model's definition). Fails with each
    tag found on one side only.
#}
{% test sort_keys_match_columns(model, measurement=none) %}
    {%- set name = measurement or model.identifier -%}
    {%- set table_columns = [] -%}
    {%- if execute -%}
        {%- for column in adapter.get_columns_in_relation(model) -%}
            {%- do table_columns.append(column.name) -%}
        {%- endfor -%}
    {%- endif -%}
    with table_tags as (
        select column_name
        from {{ ref('int_column_types') }}
        where
            measurement = {{ tsdedup.string_literal(name) }}
            and column_type = 'tag'
            and column_name in {{ tsdedup.string_list(table_columns or ['time_ns']) }}
    ),

    key_tags as (
        select distinct k.column_name
        from {{ ref('sort_keys') }} as s
        lateral view explode(s.partition_key) k as column_name
        where
            s.measurement = {{ tsdedup.string_literal(name) }}
            and k.column_name != 'time'
    )

    select
        coalesce(t.column_name, k.column_name) as column_name,
        if(t.column_name is null, 'in a sort key but not a tag column of the table',
            'a tag column of the table but in no sort key') as problem
    from table_tags as t
    full outer join key_tags as k
        on t.column_name = k.column_name
    where t.column_name is null or k.column_name is null
{% endtest %}
