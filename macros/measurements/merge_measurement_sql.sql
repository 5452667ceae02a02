{#
    The write statement of a measurement model in mode 'merge' (see
    plan_measurement_write): merge the run's deduplicated new points (`source`)
    into the stored rows of the day partitions they touch, row by row.

        merge into tsdedup.cpu as t
        using cpu__dbt_tmp as s
        on
            (t.`time` >= timestamp'2026-11-02 00:00:00' and t.`time` < timestamp'2026-11-03 00:00:00')
            and t.time_ns = s.time_ns
            and t.`host` <=> s.`host`
        when matched then update set
            t.`usage_user` = coalesce(s.`usage_user`, t.`usage_user`)
        when not matched then insert (`host`, `usage_user`, `time`, `time_ns`, series_hash)
        values (s.`host`, s.`usage_user`, s.`time`, s.`time_ns`, xxhash64(if(s.`host` is null, null, 'host'), s.`host`))

    With `key times: <min> to <max>` in the header (the stored keys were asked,
    plan_measurement_write), the stored rows outside those times cannot share
    a key with a new point: the merge reads only those inside (`t.time_ns
    between ...`), and the new points outside are inserted.

    The stored row comes first in ingestion order, so under the winner rule
    'fields' a field keeps its stored value only where the new points have none;
    under 'last_row' the new row replaces it whole. A matched row keeps its
    series hash (the same tags); an inserted row gets its own, computed here
    rather than in `source` (decision 0026: Spark's constraint inference over
    a source with a hash of every tag grows exponentially with the tags). Tags
    compare with `<=>`: an absent tag is NULL and NULL equals NULL. The day predicates let Iceberg read
    only the touched partitions.

    The table is merge-on-read: a matched row is marked deleted in a position
    delete file and written again, no stored data file is rewritten. Rows are
    written in the days' shared sort key, set as the table's write order first,
    by the tasks that joined them (`write.merge.distribution-mode` none: no
    exchange that would hand a day's rows to one task).

    `header` is the model's write-mode comment, e.g. `/* tsdedup write mode:
    merge, winner rule: fields, days: 2026-11-02, tags: {"names": ["host"],
    "sort key": ["host"]} */`: the measurement's tags and the days' shared
    sort key come from the model (comment_json), which asked for them;
    `state` the table's state record (read_measurement_state).

    Mode 'replace' (`/* tsdedup write mode: replace, days: ... */`, after a
    retraction): `source` holds every row of those days, rebuilt from the raw
    log, so a matched row is replaced whole, and a stored row of those days
    that `source` no longer has is deleted; all in one commit, even for a day
    left with no row.
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
    {%- set names = adapter.get_columns_in_relation(target) | map(attribute='name') | list -%}
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
    -- by the series hashes, only new points of these times may share a key with a stored row
    and t.time_ns between {{ key_times[0] }} and {{ key_times[1] }}
    {%- endif %}
    and t.time_ns = s.time_ns
    {%- for tag in tags %}
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
