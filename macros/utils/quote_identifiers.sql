{# A list of names from data, each quoted as an identifier (see quote_identifier). #}
{% macro quote_identifiers(names) %}
    {%- set quoted = [] -%}
    {%- for name in names -%}
        {%- do quoted.append(tsdedup.quote_identifier(name)) -%}
    {%- endfor -%}
    {{ return(quoted) }}
{% endmacro %}
