{#
    `text` with Hadoop's glob characters escaped by a backslash: {}[]*?\ and,
    when `with_comma`, the comma (it separates the alternatives inside braces).
#}
{% macro _escape_glob(text, with_comma=false) %}
    {#- A namespace: a plain `set` inside the loop would not outlive it. -#}
    {%- set escaped = namespace(text=text | string) -%}
    {%- for ch in ['\\', '{', '}', '[', ']', '*', '?'] + ([','] if with_comma else []) -%}
        {%- set escaped.text = escaped.text | replace(ch, '\\' ~ ch) -%}
    {%- endfor -%}
    {{ return(escaped.text) }}
{% endmacro %}
