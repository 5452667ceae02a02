{#
    Set the order Iceberg sorts a measurement table's rows in when a statement
    writes them without sorting them itself (a row-level MERGE): `columns` in
    that order, ascending, NULLs first, as the models sort; within each write
    task, so rows are not re-distributed. With no columns, clear the order,
    so overwrites and appends, which come sorted by each day's own key, are
    written as they come. `state`: the table's state record; an order it
    already shows (Iceberg's `sort-order` property) is not set again, which
    would be a commit of its own.
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
