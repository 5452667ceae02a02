{#
    A file or folder path as the table identifier of Spark's `binaryFile` source.
    Hadoop treats {}[]*?\ in a path as a glob, so they are escaped; a backtick is
    doubled so the path cannot leave the quoted identifier.
#}
{% macro binary_file_path(path) %}
    {{ return('binaryFile.`' ~ (tsdedup._escape_glob(path) | replace('`', '``')) ~ '`') }}
{% endmacro %}
