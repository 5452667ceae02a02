{#
    The line an incremental measurement model's compiled SQL carries when its
    plan found every column the model writes in the table already: the
    materialization then writes from the model's query itself, with no
    temporary view and no schema change step (decision 0037).
#}
{% macro stored_columns_comment() %}
    {{- return('/* tsdedup columns: the table has every column written */') -}}
{% endmacro %}
