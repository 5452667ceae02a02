{#
    `alter table ... set tblproperties` with those of `wanted` (a dict of
    strings) that `properties` (the table's, from table_properties) does not
    already hold with the same value; empty, so no statement runs, when it
    holds them all. Every write of properties is an Iceberg commit that leaves
    a metadata file behind: a run that changes nothing writes none.
#}
{% macro set_changed_properties(relation, properties, wanted) %}
    {%- set changed = [] -%}
    {%- for key, value in wanted.items() if properties.get(key) != value | string -%}
        {%- do changed.append(tsdedup.string_literal(key) ~ ' = ' ~ tsdedup.string_literal(value)) -%}
    {%- endfor -%}
    {%- if not changed -%}
        {{ return('') }}
    {%- endif -%}
    {{ return('alter table ' ~ relation ~ ' set tblproperties (\n    ' ~ changed | join(',\n    ') ~ '\n)') }}
{% endmacro %}
