{#
    Several files of one folder as a single scan of Spark's `binaryFile` source:
    the folder, then the file names as one Hadoop glob alternation,
    `folder/{name1,name2,...}`. One scan lists the folder once and plans one
    stage, where a scan per file would plan (and compile) a stage per file.

    Glob characters in the folder and the names ({}[]*?\ and, inside the braces,
    the comma) are escaped, and a backtick is doubled, so no name can change the
    pattern or leave the quoted identifier.

    A glob lists the whole folder, and Hadoop cannot list a name with ':'. When
    the folder holds such a name, `glob=false` reads the files one by one instead
    (a union of one scan per file, each a plain path that needs no listing).
#}
{% macro binary_files_in_folder(folder, file_names, glob=true) %}
    {%- if file_names | length == 0 -%}
        {% do exceptions.raise_compiler_error("tsdedup.binary_files_in_folder: no file names given for " ~ folder) %}
    {%- endif -%}
    {%- if not glob -%}
        {%- set scans = [] -%}
        {%- for name in file_names -%}
            {%- do scans.append('select * from ' ~ tsdedup.binary_file_path(folder ~ '/' ~ name)) -%}
        {%- endfor -%}
        {{ return('(\n        ' ~ scans | join('\n        union all\n        ') ~ '\n    )') }}
    {%- endif -%}
    {%- set escaped_names = [] -%}
    {%- for name in file_names -%}
        {%- do escaped_names.append(tsdedup._escape_glob(name, with_comma=true)) -%}
    {%- endfor -%}
    {%- set pattern = tsdedup._escape_glob(folder) ~ '/{' ~ escaped_names | join(',') ~ '}' -%}
    {{ return('binaryFile.`' ~ (pattern | replace('`', '``')) ~ '`') }}
{% endmacro %}
