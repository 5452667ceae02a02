{#
    The select of int_chunk_tag_cardinalities: per chunk and time partition,
    its accepted points, their time range and each tag's distinct values,
    for the chunks after `after_chunk`; see _catalog__macros.yml for when
    `leave_out_type_conflicts` may be false.
#}
{% macro chunk_tag_cardinalities(after_chunk=none, leave_out_type_conflicts=true) %}
    {#- Both are referenced, so the model depends on both whichever it reads. -#}
    {%- set accepted_relation = ref('int_accepted_points') -%}
    {%- set points_relation = ref('stg_points') -%}
with accepted_points as (
    select
        p.measurement,
        to_date({{ tsdedup.time_from_ns('p.time_ns') }}) as partition_day,
        p.chunk_seq,
        p.time_ns,
        p.tags
    from {{ accepted_relation if leave_out_type_conflicts else points_relation }} as p
    {%- if after_chunk is not none %}
    where p.chunk_seq > {{ after_chunk }}
    {%- endif %}
    {%- if not leave_out_type_conflicts %}
    -- no chunk read writes a column with another type or spelling than the catalog's: no point is left out
    {%- endif %}
),

point_and_tag_rows as (
    select
        a.measurement,
        a.partition_day,
        a.chunk_seq,
        a.time_ns,
        r.tag_name,
        r.tag_value
    from accepted_points as a
        lateral view inline(
            concat(
                array(named_struct('key', cast(null as string), 'value', cast(null as string))),
                map_entries(coalesce(a.tags, cast(map() as map<string, string>)))
            )
        ) r as tag_name, tag_value
),

per_tag as (
    select
        measurement,
        partition_day,
        chunk_seq,
        tag_name,
        count(*) as group_rows,
        min(time_ns) as min_time_ns,
        max(time_ns) as max_time_ns,
        count(distinct tag_value) as distinct_values
    from point_and_tag_rows
    group by measurement, partition_day, chunk_seq, tag_name
)

select
    measurement,
    partition_day,
    chunk_seq,
    -- the rows without a tag name are the points themselves
    max(if(tag_name is null, group_rows, null)) as point_count,
    min(min_time_ns) as min_time_ns,
    max(max_time_ns) as max_time_ns,
    map_from_entries(
        collect_list(if(tag_name is null, null, struct(tag_name, distinct_values)))
    ) as cardinalities
from per_tag
group by measurement, partition_day, chunk_seq
{%- endmacro %}
