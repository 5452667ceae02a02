{#
    Several files of one folder as one scan of Spark's `binaryFile` source,
    `folder/{name1,name2,...}`, glob characters and backticks escaped; with
    `glob=false` (the folder holds a name with ':') a union of one scan per
    file. Why one glob, and the escaping: _landing__macros.yml.
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
