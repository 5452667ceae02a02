{#
    Every measurement that has landed, with the points the raw log holds for
    it and the models whose tables hold it (a measurement may have several,
    say one per winner rule): none, and its points reach no table (add a model
    file; the run summary says so). Points
    are counted from the raw log's partition metadata (it is partitioned by
    measurement); no point is read.
#}
{%- set models = [] -%}
{%- if execute -%}
    {%- for node in graph.nodes.values()
        if node.resource_type == 'model' and node.package_name == project_name
        and node.config.materialized == 'measurement'
        and node.config.meta.get('tsdedup_measurement') is not none -%}
        {%- do models.append({'measurement': node.config.meta['tsdedup_measurement'], 'model': node.name}) -%}
    {%- endfor -%}
{%- endif %}

with landed as (
    select
        `partition`.measurement,  -- noqa: RF06
        sum(record_count) as points_landed
    from {{ ref('raw_chunks') }}.partitions
    where `partition`.row_kind = 'point'  -- noqa: RF06
    group by `partition`.measurement  -- noqa: RF06
),

measurement_models as (
    {%- if models %}
    select
        declared.measurement,
        declared.model_name
    from
        values
        {%- for model in models %}
        ({{ tsdedup.string_literal(model.measurement) }}, {{ tsdedup.string_literal(model.model) }}){{ ',' if not loop.last }}
        {%- endfor %}
            as declared (measurement, model_name)
    {%- else %}
    select
        cast(null as string) as measurement,
        cast(null as string) as model_name
    where false
    {%- endif %}
)

select
    l.measurement,
    l.points_landed,
    array_sort(collect_list(m.model_name)) as model_names
from landed as l
left join measurement_models as m
    on l.measurement = m.measurement
group by l.measurement, l.points_landed
