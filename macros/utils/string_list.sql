{# A parenthesised, comma-separated list of string literals, for `in (...)`. #}
{% macro string_list(values) %}
    {%- set literals = [] -%}
    {%- for value in values -%}
        {%- do literals.append(tsdedup.string_literal(value)) -%}
    {%- endfor -%}
    {{ return('(' ~ literals | join(', ') ~ ')') }}
{% endmacro %}
