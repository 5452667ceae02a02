{#
    The `path` column of Spark's `binaryFile` source is a URI, with characters
    such as spaces percent-encoded; this is the path as the file system names it
    (a literal `+` stays a `+`).
#}
{% macro decoded_file_path(column='path') %}
    {{ return("url_decode(replace(" ~ column ~ ", '+', '%2B'))") }}
{% endmacro %}
