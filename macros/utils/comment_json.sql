{#
    A value as JSON that can stand inside a SQL comment (`/* ... */`): every
    `*` (which only a string can hold) is written `\u002a`, which JSON reads
    back as `*`, so no name from data can end the comment or open a nested
    one. Read it back with fromjson.
#}
{% macro comment_json(value) %}
    {{ return(tojson(value) | replace('*', '\\u002a')) }}
{% endmacro %}
