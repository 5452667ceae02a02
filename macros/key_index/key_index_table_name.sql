{#
    The key under which a measurement table's keys are kept in the key index:
    its `schema.table` name, as a SQL string literal. One set of keys per
    table, also for two tables of one measurement.
#}
{% macro key_index_table_name(relation) %}
    {{ return(tsdedup.string_literal(relation.schema ~ '.' ~ relation.identifier)) }}
{% endmacro %}
