{#
    Retract chunks: `tsdedup retract 7 feed.lp` runs
    `dbt run-operation retract_chunks --args '{chunks: [7, feed.lp]}'`.
    Each argument is a chunk number or the name of a landed file (every chunk
    of that name). The chunks stay in the raw log; from now on stg_points and
    stg_columns leave their points out, and the next run rebuilds the day
    partitions of the measurement tables they had points in. Unknown chunks
    and files are a compiler error that names them; retracting a chunk twice
    changes nothing.
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
