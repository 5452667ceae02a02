{#
    The join condition of a column row (`row`, an alias with measurement and
    column_name) to its entry in the column catalog (`catalog`, an alias of
    int_column_types): the same measurement and the same name compared without
    case, as the metastore compares column names (decision 0009).
#}
{% macro same_column(row, catalog) -%}
    {{ row }}.measurement = {{ catalog }}.measurement and lower({{ row }}.column_name) = lower({{ catalog }}.column_name)
{%- endmacro %}
