{#
    The day partitions of a measurement that the chunks after `after_chunk`
    have points in, as ISO date strings, read from the sort-key catalog
    `catalog_relation` (one row per chunk and partition), not from the points.
#}
{% macro touched_partition_days(catalog_relation, measurement_name, after_chunk) %}
    {%- if not execute -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set sql -%}
        select distinct cast(partition_day as string) as partition_day
        from {{ catalog_relation }}
        where
            measurement = {{ tsdedup.string_literal(measurement_name) }}
            and chunk_seq > {{ after_chunk }}
        order by partition_day
    {%- endset -%}
    {{ return(run_query(sql).columns[0].values() | list) }}
{% endmacro %}
