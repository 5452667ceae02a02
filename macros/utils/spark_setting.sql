{#
    A Spark setting's value as `set <key>` shows it (trimmed), or none when
    undefined: from the session (adapter.tsdedup_spark_setting), else from
    `set` itself, which also reads the Hadoop configuration (utils yml).
#}
{% macro spark_setting(key) %}
    {%- set value = adapter.tsdedup_spark_setting(key) -%}
    {%- if value is none -%}
        {%- set value = run_query('set `' ~ key ~ '`').columns[1].values()[0] | string -%}
    {%- endif -%}
    {%- set value = value | trim -%}
    {{ return(none if value == '<undefined>' else value) }}
{% endmacro %}
