{#
    Of `rows` (listed landed files whose name was ingested before, with another
    size or modification time), the names whose content equals a chunk ingested
    under that name: one statement, the files read in one scan of their folder
    (binary_files_in_folder); a file of 0 bytes, which the scan does not list,
    compares as empty content. Returns a list of file names.
#}
{% macro _unchanged_landed_files(registry, rows) %}
    {%- if not rows -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set folders = {} -%}
    {%- set empty = [] -%}
    {%- for row in rows -%}
        {%- if row['source_bytes'] == 0 -%}
            {%- do empty.append(row['source_file']) -%}
        {%- else -%}
            {%- set folder = row['source_path'][:row['source_path'].rfind('/')] -%}
            {%- do folders.setdefault(folder, []).append(row) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set contents = [] -%}
    {%- for folder, folder_rows in folders.items() -%}
        {%- do contents.append(
            'select regexp_extract(path, \'[^/]+$\', 0) as source_file, sha2(content, 256) as content_sha256 from '
            ~ tsdedup.binary_files_in_folder(
                folder,
                folder_rows | map(attribute='source_file') | list,
                glob=not (folder_rows | map(attribute='folder_has_colon_name') | max),
            )) -%}
    {%- endfor -%}
    {%- for name in empty -%}
        {%- do contents.append('select ' ~ tsdedup.string_literal(name) ~ ' as source_file, sha2(x\'\', 256) as content_sha256') -%}
    {%- endfor -%}
    {%- set sql -%}
        select distinct b.source_file
        from (
            {{ contents | join('\n            union all\n            ') }}
        ) as b
        inner join {{ registry }} as r
            on
                r.row_kind = 'chunk'
                and r.source_file = b.source_file
                and r.content_sha256 = b.content_sha256
    {%- endset -%}
    {{ return(run_query(sql).columns[0].values() | list) }}
{% endmacro %}
