{#
    The operation behind `tsdedup retract`: the named chunks (numbers, or
    landed files' names) join the retraction register, and from the next run
    on no model counts their points. The command line, errors and repeats:
    _retraction__macros.yml; decision 0014.
#}
{% macro retract_chunks(chunks) %}
    {%- if chunks is string or chunks is number -%}
        {%- set chunks = [chunks] -%}
    {%- endif -%}
    {%- if not chunks -%}
        {% do exceptions.raise_compiler_error("tsdedup retract: name the chunks to retract, by number or file name") %}
    {%- endif -%}
    {%- do tsdedup.create_retracted_chunks_table() -%}
    {%- set register = tsdedup.retracted_chunks_relation() -%}
    {%- set numbers = [] -%}
    {%- set names = [] -%}
    {%- for chunk in chunks -%}
        {%- if chunk is number or (chunk is string and chunk.isdigit()) -%}
            {%- do numbers.append(chunk | int) -%}
        {%- else -%}
            {%- do names.append(chunk | string) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set conditions = [] -%}
    {%- if numbers -%}
        {%- do conditions.append('c.chunk_seq in (' ~ numbers | join(', ') ~ ')') -%}
    {%- endif -%}
    {%- if names -%}
        {%- do conditions.append('c.source_file in ' ~ tsdedup.string_list(names)) -%}
    {%- endif -%}
    {%- set found = run_query(
        'select c.chunk_seq, c.source_file, r.chunk_seq is not null as retracted'
        ~ ' from ' ~ tsdedup.model_relation('stg_chunks') ~ ' as c'
        ~ ' left join ' ~ register ~ ' as r on c.chunk_seq = r.chunk_seq'
        ~ ' where ' ~ conditions | join(' or ') ~ ' order by c.chunk_seq'
    ).rows -%}
    {%- set missing = [] -%}
    {%- for number in numbers if number not in found | map(attribute='chunk_seq') | list -%}
        {%- do missing.append('chunk ' ~ number) -%}
    {%- endfor -%}
    {%- for name in names if name not in found | map(attribute='source_file') | list -%}
        {%- do missing.append('file ' ~ (name | tojson)) -%}
    {%- endfor -%}
    {%- if missing -%}
        {% do exceptions.raise_compiler_error("tsdedup retract: no chunk was ingested as " ~ missing | join(', ')
            ~ "; nothing was retracted (rpt_chunk_accounting lists the chunks)") %}
    {%- endif -%}
    {%- set new_rows = [] -%}
    {%- for row in found -%}
        {%- if row['retracted'] -%}
            {{ log("tsdedup: chunk " ~ row['chunk_seq'] ~ " (" ~ row['source_file'] ~ ") was retracted before", info=True) }}
        {%- else -%}
            {%- do new_rows.append(row) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if new_rows -%}
        {%- set next_seq = run_query('select coalesce(max(retraction_seq), 0) + 1 from ' ~ register).columns[0].values()[0] | int -%}
        {%- set values = [] -%}
        {%- for row in new_rows -%}
            {%- do values.append('(' ~ next_seq ~ ', ' ~ row['chunk_seq'] ~ ', ' ~ tsdedup.string_literal(row['source_file']) ~ ', current_timestamp())') -%}
        {%- endfor -%}
        {%- do run_query('insert into ' ~ register ~ ' values ' ~ values | join(', ')) -%}
        {%- for row in new_rows -%}
            {{ log("tsdedup: retracted chunk " ~ row['chunk_seq'] ~ " (" ~ row['source_file']
                ~ "); the next run rebuilds the day partitions it had points in", info=True) }}
        {%- endfor -%}
    {%- endif -%}
{% endmacro %}
