{#
    The lines of `/* tsdedup ... */` comment that compiled SQL starts with:
    a measurement model's messages to its materialization. A line of the
    query below them (where a name from data may stand) is never one.
#}
{% macro leading_comment_lines(code) %}
    {%- set found = modules.re.match('(?:/\\* tsdedup [^\n]*\\*/(?:\n|$))*', (code or '').lstrip()) -%}
    {{ return(found.group(0).rstrip('\n').split('\n') if found.group(0) else []) }}
{% endmacro %}
