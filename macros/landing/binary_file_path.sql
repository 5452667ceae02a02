{#
    A file or folder path as the table identifier of Spark's `binaryFile` source.
    Hadoop treats {}[]*?\ in a path as a glob, so they are escaped; a backtick is
    doubled so the path cannot leave the quoted identifier.
#}
{% macro binary_file_path(path) %}
    {#- A namespace: a plain `set` inside the loop would not outlive it. -#}
    {%- set escaped = namespace(path=path | string) -%}
    {%- for ch in ['\\', '{', '}', '[', ']', '*', '?'] -%}
        {%- set escaped.path = escaped.path | replace(ch, '\\' ~ ch) -%}
    {%- endfor -%}
    {{ return('binaryFile.`' ~ (escaped.path | replace('`', '``')) ~ '`') }}
{% endmacro %}
