{#
    True for a column row (`row`) that writes its catalog entry (`catalog`,
    joined by same_column) with another type, or spells its name with other
    upper/lower case letters: the point that writes it is rejected
    (int_type_conflicts).
#}
{% macro conflicts_with_catalog(row, catalog) -%}
    {{ row }}.column_type != {{ catalog }}.column_type or {{ row }}.column_name != {{ catalog }}.column_name
{%- endmacro %}
