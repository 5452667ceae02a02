{#
    Set the order Iceberg sorts a measurement table's rows in when a statement
    writes them without sorting them itself (a row-level MERGE): `columns` in
    that order, ascending, NULLs first, as the models sort; within each write
    task, so rows are not re-distributed. With no columns, clear the order,
    so overwrites and appends, which come sorted by each day's own key, are
    written as they come. `state`: the table's state record.
#}
{% macro set_write_order(relation, columns, state) %}
    {%- if columns -%}
        {%- do run_query("alter table " ~ relation ~ " write locally ordered by "
            ~ tsdedup.quote_identifiers(columns) | join(', ')) -%}
    {%- elif state['write_ordered'] -%}
        {%- do run_query("alter table " ~ relation ~ " write unordered") -%}
    {%- endif -%}
{% endmacro %}
