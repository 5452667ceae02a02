{#
    The current value of a Spark setting, as the text `set <key>` shows it
    (trimmed), or none when the session does not define it. Read from the
    session without a statement when Spark's SQL configuration defines the
    key (adapter.tsdedup_spark_setting); otherwise `set` itself answers, which
    also looks in the Hadoop configuration. The key is quoted, so a key with a
    hyphen (Iceberg's settings) reads too.
#}
{% macro spark_setting(key) %}
    {%- set value = adapter.tsdedup_spark_setting(key) -%}
    {%- if value is none -%}
        {%- set value = run_query('set `' ~ key ~ '`').columns[1].values()[0] | string -%}
    {%- endif -%}
    {%- set value = value | trim -%}
    {{ return(none if value == '<undefined>' else value) }}
{% endmacro %}
