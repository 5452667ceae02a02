{#
    No two rows of a measurement table share the series (every tag column) and
    time_ns. GROUP BY treats NULL as equal to NULL, so a point without a tag is
    the same series as another point without it. Fails with the repeated keys.
#}
{% test no_duplicate_points(model, measurement=none) %}
    {%- set name = measurement or model.identifier -%}
    {%- set columns = tsdedup.measurement_columns(name) -%}
    {%- set keys = [] -%}
    {%- for tag in columns['tags'] -%}
        {%- do keys.append(tsdedup.quote_identifier(tag)) -%}
    {%- endfor -%}
    {%- do keys.append('time_ns') -%}
    select
        {{ keys | join(',\n        ') }},
        count(*) as occurrences
    from {{ model }}
    group by {{ keys | join(', ') }}
    having count(*) > 1
{% endtest %}
