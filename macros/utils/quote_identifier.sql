{#
    Quote a name that comes from data (measurement, tag or field) as a SQL
    identifier. Backticks inside the name are doubled, so no name can end the
    identifier early and inject SQL.
#}
{% macro quote_identifier(name) %}
    {{ return(adapter.dispatch('quote_identifier', 'tsdedup')(name)) }}
{% endmacro %}

{% macro default__quote_identifier(name) %}
    {{ return('"' ~ (name | string | replace('"', '""')) ~ '"') }}
{% endmacro %}

{# Spark: identifiers are quoted with backticks; a backtick is written twice. #}
{% macro spark__quote_identifier(name) %}
    {{ return('`' ~ (name | string | replace('`', '``')) ~ '`') }}
{% endmacro %}
