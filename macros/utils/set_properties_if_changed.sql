{#
    `alter table ... set tblproperties` with every property of `wanted` when
    `properties` (the table's, table_properties) differs from it in any;
    empty, so no statement runs, when the table holds them all already:
    every property write is an Iceberg commit (decision 0018).
#}
{% macro set_properties_if_changed(relation, properties, wanted) %}
    {%- set changed = [] -%}
    {%- for key, value in wanted.items() if properties.get(key) != value | string -%}
        {%- do changed.append(key) -%}
    {%- endfor -%}
    {%- if not changed -%}
        {{ return('') }}
    {%- endif -%}
    {%- set assignments = [] -%}
    {%- for key, value in wanted.items() -%}
        {%- do assignments.append(tsdedup.string_literal(key) ~ ' = ' ~ tsdedup.string_literal(value)) -%}
    {%- endfor -%}
    {{ return('alter table ' ~ relation ~ ' set tblproperties (\n    ' ~ assignments | join(',\n    ') ~ '\n)') }}
{% endmacro %}
