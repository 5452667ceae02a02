{#
    No two rows of a measurement table share the series (every tag column) and
    time_ns. GROUP BY treats NULL as equal to NULL, so a point without a tag is
    the same series as another point without it. Fails with the repeated keys,
    each as a struct `point_key` (a tag may be called like any column this test
    adds). Tags are spelled as the model spells them: a view in the metastore
    keeps its column names in lower case.
#}
{% test no_duplicate_points(model, measurement=none) %}
    {%- set name = measurement or model.identifier -%}
    {%- set columns = tsdedup.measurement_columns(name) -%}
    {%- set spelled = {} -%}
    {%- if execute -%}
        {%- for column in adapter.get_columns_in_relation(model) -%}
            {%- do spelled.update({column.name | lower: column.name}) -%}
        {%- endfor -%}
    {%- endif -%}
    {%- set keys = [] -%}
    {%- for tag in columns['tags'] -%}
        {%- do keys.append(tsdedup.quote_identifier(spelled.get(tag | lower, tag))) -%}
    {%- endfor -%}
    {%- do keys.append('time_ns') -%}
    select
        struct({{ keys | join(', ') }}) as point_key,
        count(*) as occurrences
    from {{ model }}
    group by {{ keys | join(', ') }}
    having count(*) > 1
{% endtest %}
