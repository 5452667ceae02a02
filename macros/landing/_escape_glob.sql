{#
    `text` with Hadoop's glob characters escaped by a backslash: {}[]*?\ and,
    when `with_comma`, the comma (it separates the alternatives inside braces).
#}
{% macro _escape_glob(text, with_comma=false) %}
    {%- set escaped = text | string -%}
    {%- for ch in ['\\', '{', '}', '[', ']', '*', '?'] + ([','] if with_comma else []) -%}
        {%- set escaped = escaped | replace(ch, '\\' ~ ch) -%}
    {%- endfor -%}
    {{ return(escaped) }}
{% endmacro %}
