-- deduplicate_points in each mode: `fields` keeps per key the last non-null
-- value of each field, `last_row` the whole last point.
{%- set modes = ['fields', 'last_row'] %}
with points as (
    select
        measurement,
        chunk_seq,
        position,
        named_struct(
            'host', host, 'region', region, 'time_ns', time_ns, 'usage', usage, 'status', status
        ) as point
    from {{ ref('dedup_points') }}
),
{% for mode in modes %}
{{ mode }}_winners as (
    {{ tsdedup.deduplicate_points(
        'points',
        ['host', 'region', 'time_ns'],
        ['usage', 'status'],
        ['chunk_seq', 'position'],
        mode=mode,
        hidden_keys=['measurement'],
    ) | indent(4) }}
){{ ',' if not loop.last }}
{% endfor %}
{%- for mode in modes %}
select
    '{{ mode }}' as dedup_mode,
    measurement,
    point.host,
    point.region,
    point.time_ns,
    point.usage,
    point.status
from {{ mode }}_winners
{%- if not loop.last %}
union all
{%- endif %}
{%- endfor %}
