{#
    Render a value that comes from data as a SQL string literal. Spark reads
    backslash escapes inside string literals, so backslashes are escaped first,
    then quotes and line breaks.
#}
{% macro string_literal(value) %}
    {{ return(adapter.dispatch('string_literal', 'tsdedup')(value)) }}
{% endmacro %}

{% macro default__string_literal(value) %}
    {{ return("'" ~ (value | string | replace("'", "''")) ~ "'") }}
{% endmacro %}

{% macro spark__string_literal(value) %}
    {%- set escaped = value | string
        | replace('\\', '\\\\')
        | replace("'", "\\'")
        | replace('\n', '\\n')
        | replace('\r', '\\r')
        | replace('\t', '\\t') -%}
    {{ return("'" ~ escaped ~ "'") }}
{% endmacro %}
