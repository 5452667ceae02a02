{#
    The current value of a Spark setting, as the text `set <key>` shows it
    (trimmed), or none when the session does not define it. The key is quoted,
    so a key with a hyphen (Iceberg's settings) reads too.
#}
{% macro spark_setting(key) %}
    {%- set value = run_query('set `' ~ key ~ '`').columns[1].values()[0] | string | trim -%}
    {{ return(none if value == '<undefined>' else value) }}
{% endmacro %}
