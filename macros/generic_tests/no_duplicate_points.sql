{#
    No two rows of a measurement table or live view share the series (every
    tag column, NULL equal to NULL) and time_ns; fails with the repeated keys.
    Details: _generic_tests__macros.yml.
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
