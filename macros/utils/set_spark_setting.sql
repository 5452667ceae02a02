{#
    `set <key> = <value>` in the session, without a statement
    (adapter.tsdedup_set_spark_setting): for the settings a macro changes
    around one statement and sets back after it. dbt's log names the change.
#}
{% macro set_spark_setting(key, value) %}
    {{ log("tsdedup: set " ~ key ~ " = " ~ value) }}
    {%- do adapter.tsdedup_set_spark_setting(key, value | string) -%}
{% endmacro %}
