{#
    Set (or, with no columns, clear) the order Iceberg sorts a measurement
    table's rows in when a statement does not sort them itself, within each
    write task (_measurements__macros.yml; docs/internals.md, "The write
    modes").
#}
{% macro set_write_order(relation, columns, state) %}
    {%- if columns -%}
        {#- Iceberg names the columns unquoted: a name with a comma could make two
            orders read alike, so such an order is always set. -#}
        {%- set shown = [] -%}
        {%- for column in columns -%}
            {%- do shown.append(column ~ ' ASC NULLS FIRST') -%}
        {%- endfor -%}
        {%- if state['properties'].get('sort-order') != shown | join(', ') or ',' in columns | join('') -%}
            {%- do run_query("alter table " ~ relation ~ " write locally ordered by "
                ~ tsdedup.quote_identifiers(columns) | join(', ')) -%}
        {%- endif -%}
    {%- elif state['write_ordered'] -%}
        {%- do run_query("alter table " ~ relation ~ " write unordered") -%}
    {%- endif -%}
{% endmacro %}
