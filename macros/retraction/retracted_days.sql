{#
    The day partitions of a measurement table that hold points of chunks
    retracted since the table last applied the register (table property
    `tsdedup.retraction_seq`): the days, in the chunk catalog, of retracted
    chunks up to the table's watermark. Later chunks were never merged, so
    nothing of theirs is stored. A sorted list of ISO dates.
#}
{% macro retracted_days(catalog_relation, measurement_name, watermark, applied) %}
    {%- if not execute -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set sql -%}
        select distinct cast(c.partition_day as string) as partition_day
        from {{ catalog_relation }} as c
        inner join {{ tsdedup.retracted_chunks_relation() }} as r
            on c.chunk_seq = r.chunk_seq
        where
            c.measurement = {{ tsdedup.string_literal(measurement_name) }}
            and c.chunk_seq <= {{ watermark }}
            and r.retraction_seq > {{ applied }}
        order by partition_day
    {%- endset -%}
    {{ return(run_query(sql).columns[0].values() | list) }}
{% endmacro %}
