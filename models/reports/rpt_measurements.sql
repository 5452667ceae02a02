{#
    Every measurement that has landed, with the points the raw log holds for
    it and the models whose tables hold it (a measurement may have several,
    say one per winner rule). A measurement that no model file declares is
    discovered: tsdedup generates its model (tsdedup/discovery.py,
    decision 0015), unless its name cannot be a table name; then it has none
    and its points reach no table (the run summary says why). Points are
    counted from the raw log's partition metadata (it is partitioned by
    measurement); no point is read.
#}
{%- set models = [] -%}
{%- if execute -%}
    {%- for node in graph.nodes.values()
        if node.resource_type == 'model' and node.package_name == project_name
        and node.config.materialized == 'measurement'
        and node.config.meta.get('tsdedup_measurement') is not none -%}
        {%- do models.append({
            'measurement': node.config.meta['tsdedup_measurement'],
            'model': node.name,
            'discovered': node.config.meta.get('tsdedup_discovered') is true,
        }) -%}
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
        models.measurement,
        models.model_name,
        models.is_discovered
    from
        values
        {%- for model in models %}
        ({{ tsdedup.string_literal(model.measurement) }}, {{ tsdedup.string_literal(model.model) }}, {{ 'true' if model.discovered else 'false' }}){{ ',' if not loop.last }}
        {%- endfor %}
            as models (measurement, model_name, is_discovered)
    {%- else %}
    select
        cast(null as string) as measurement,
        cast(null as string) as model_name,
        cast(null as boolean) as is_discovered
    where false
    {%- endif %}
)

select
    l.measurement,
    l.points_landed,
    coalesce(bool_or(m.is_discovered), false) as is_discovered,
    array_sort(collect_list(m.model_name)) as model_names
from landed as l
left join measurement_models as m
    on l.measurement = m.measurement
group by l.measurement, l.points_landed
