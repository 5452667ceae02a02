{#
    Points rejected because they write a column with another type than the
    measurement's established one (InfluxDB: "field type conflict"), or spell
    an established column's name with other upper/lower case letters (column
    names are compared without case, as the metastore does), with the point
    written back as line protocol. Only the chunks and measurements where such
    a column was seen are scanned: the conflicting columns are broadcast to
    the scan of the points, so when there are none (the usual case) Spark
    skips that scan.
#}
with conflicting_columns as (
    select
        c.chunk_seq,
        c.measurement,
        c.column_name,
        c.column_type,
        t.column_name as established_name,
        t.column_type as established_type,
        t.first_chunk_seq
    from {{ ref('stg_columns') }} as c
    inner join {{ ref('int_column_types') }} as t
        on {{ tsdedup.same_column('c', 't') }}
    where {{ tsdedup.conflicts_with_catalog('c', 't') }}
),

conflicting_points as (
    select /*+ broadcast(c) */
        p.chunk_seq,
        p.position,
        p.source_file,
        p.measurement,
        p.time_ns,
        c.column_name,
        {{ tsdedup.point_line_text('p') | indent(8) }} as line_text,
        if(
            c.column_name != c.established_name,
            concat(
                'column name conflict: column ', c.column_name, ' of measurement ', c.measurement,
                ' differs only in case from its column ', c.established_name,
                ' (since chunk ', c.first_chunk_seq, '); column names are compared without case'
            ),
            concat(
                if(
                    c.column_type = 'tag' or c.established_type = 'tag',
                    'column type conflict: ',
                    'field type conflict: '
                ),
                'column ', c.column_name, ' of measurement ', c.measurement,
                ' is ', if(c.established_type = 'tag', 'a tag', c.established_type),
                ' (since chunk ', c.first_chunk_seq, ') but this point writes it as ',
                if(c.column_type = 'tag', 'a tag', c.column_type)
            )
        ) as reject_reason
    from {{ ref('stg_points') }} as p
    inner join conflicting_columns as c
        on p.chunk_seq = c.chunk_seq and p.measurement = c.measurement
    where
        case c.column_type
            {%- for column_type, kept in tsdedup.column_types().items() %}
            when '{{ column_type }}' then map_contains_key(p.{{ kept['map'] }}, c.column_name)
            {%- endfor %}
        end
)

select
    chunk_seq,
    position,
    source_file,
    measurement,
    time_ns,
    line_text,
    min_by(reject_reason, column_name) as reject_reason
from conflicting_points
group by chunk_seq, position, source_file, measurement, time_ns, line_text
