{#
    The write statement in modes 'merge' and 'replace': an Iceberg MERGE of
    `source` into `target` on the key, as the model's write-mode `header`
    describes; `state` is the table's state record. docs/internals.md, "The
    write modes" (decisions 0011, 0014, 0026).
#}
{% macro merge_measurement_sql(source, target, header, state) %}
    {%- set found = modules.re.match('/\\* tsdedup write mode: (merge, winner rule: (fields|last_row)|replace), days: ([0-9 -]+?)(, key times: (-?[0-9]+) to (-?[0-9]+))?, tags: (\\{.*\\}) \\*/$', header) -%}
    {%- if not found -%}
        {% do exceptions.raise_compiler_error("tsdedup.merge_measurement_sql: " ~ target ~ ": the model's SQL does not start with a merge or replace write mode comment: " ~ header[:200]) %}
    {%- endif -%}
    {%- set replace = found.group(1) == 'replace' -%}
    {%- set winner_rule = found.group(2) -%}
    {%- set days = found.group(3).split() -%}
    {%- set key_times = [found.group(5), found.group(6)] if found.group(4) else none -%}
    {%- set named = fromjson(found.group(7)) -%}
    {%- set names = adapter.tsdedup_columns(target) | map(attribute='name') | list -%}
    {%- set tags = named['names'] | select('in', names) | list -%}
    {%- set fields = names | reject('in', tags + ['time', 'time_ns', 'series_hash']) | list -%}

    {%- set key = (named['sort key'] or []) | select('in', tags) | list -%}
    {%- do tsdedup.set_write_order(target, key + ['time_ns'], state) -%}
    {#- Tables created before these properties were set (dbt_project.yml). -#}
    {%- set merge_properties = tsdedup.set_properties_if_changed(target, state['properties'], {
        'write.merge.mode': 'merge-on-read',
        'write.merge.distribution-mode': 'none',
    }) -%}
    {%- if merge_properties -%}
        {%- do run_query(merge_properties) -%}
    {%- endif -%}

merge into {{ target }} as t
using {{ source }} as s
on
    (
        {{ tsdedup.day_predicates('t.`time`', days, separator='\n        or ') }}
    )
    {%- if key_times %}
    -- only stored rows of these times may share a key with a new point
    and t.time_ns between {{ key_times[0] }} and {{ key_times[1] }}
    {%- endif %}
    {#- The key in the table's write order: Spark's join sorts both sides by
        its keys in the order they are written here, so the rows reach the
        write's own sort (by file and position, then the write order) already
        in order (decision 0035). #}
    {%- for tag in key %}
    and t.{{ tsdedup.quote_identifier(tag) }} <=> s.{{ tsdedup.quote_identifier(tag) }}
    {%- endfor %}
    and t.time_ns = s.time_ns
    {%- for tag in tags | reject('in', key) %}
    and t.{{ tsdedup.quote_identifier(tag) }} <=> s.{{ tsdedup.quote_identifier(tag) }}
    {%- endfor %}
{%- set columns = names | reject('equalto', 'series_hash') | list %}
{%- if replace or winner_rule == 'last_row' %}
when matched then update set
    {%- for column in columns %}
    t.{{ tsdedup.quote_identifier(column) }} = s.{{ tsdedup.quote_identifier(column) }}{{ ',' if not loop.last }}
    {%- endfor %}
{%- elif fields %}
when matched then update set
    {%- for field in fields %}
    t.{{ tsdedup.quote_identifier(field) }} = coalesce(s.{{ tsdedup.quote_identifier(field) }}, t.{{ tsdedup.quote_identifier(field) }}){{ ',' if not loop.last }}
    {%- endfor %}
{%- endif %}
when not matched then insert (
    {%- for column in columns %}
    {{ tsdedup.quote_identifier(column) }},
    {%- endfor %}
    series_hash
) values (
    {%- for column in columns %}
    s.{{ tsdedup.quote_identifier(column) }},
    {%- endfor %}
    {{ tsdedup.series_hash(tags, 's.') }}
)
{%- if replace %}
when not matched by source and (
    {{ tsdedup.day_predicates('t.`time`', days, separator='\n    or ') }}
) then delete
{%- endif %}
{% endmacro %}
