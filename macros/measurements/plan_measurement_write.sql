{#
    How an incremental run writes a measurement table (append, merge or
    overwrite), decided from metadata alone. Arguments and the returned dict:
    _measurements__macros.yml; the rules: docs/internals.md, "The write
    modes" (decisions 0008, 0026).
#}
{% macro plan_measurement_write(relation, catalog_relation, measurement_name, after_chunk, state, tags, new_days=none, layout_rows=none) %}
    {%- if not execute -%}
        {{ return({'mode': 'overwrite', 'days': [], 'overlapping_days': [], 'key_checked_days': [], 'key_times': none, 'keys_not_asked': false}) }}
    {%- endif -%}
    {%- set hashes_trusted = state['series_hash_column'] == 'series_hash'
        and state['written_snapshot_id'] == state['snapshot_id'] -%}
    {%- set sql -%}
        with new_points as (
            select
                partition_day,
                min(min_time_ns) as min_time_ns,
                max(max_time_ns) as max_time_ns,
                sum(point_count) as point_count
            from {{ catalog_relation }}
            where
                measurement = {{ tsdedup.string_literal(measurement_name) }}
                and chunk_seq > {{ after_chunk }}
            group by partition_day
        ),

        stored_files as (
            select
                `partition`.time_day as partition_day,
                readable_metrics.time_ns.lower_bound as min_time_ns,
                readable_metrics.time_ns.upper_bound as max_time_ns,
                record_count
            from {{ relation }}.files
            where content = 0  -- data files; delete files have no time bounds
        )

        select
            cast(n.partition_day as string) as partition_day,
            count_if(
                s.partition_day is not null
                -- unknown bounds (rows recorded before the catalog kept them) overlap
                and coalesce(s.min_time_ns <= n.max_time_ns and s.max_time_ns >= n.min_time_ns, true)
            ) as overlapping_files,
            max(n.point_count) as new_points,
            -- every row of the day, which an overwrite would write again
            coalesce(sum(s.record_count), 0) as stored_rows,
            max(n.min_time_ns) as min_time_ns,
            max(n.max_time_ns) as max_time_ns
        from new_points as n
        left join stored_files as s
            on n.partition_day = s.partition_day
        group by n.partition_day
        order by partition_day
    {%- endset -%}
    {%- set plan = {'mode': 'append', 'days': [], 'overlapping_days': [], 'key_checked_days': [], 'key_times': none, 'keys_not_asked': false} -%}
    {%- set overlapping_in_time = [] -%}
    {%- set counts = {} -%}
    {%- set new_times = {} -%}
    {#- Each touched day as [day, overlapping, new points, stored rows, new
        points' first and last time_ns]: from the chunk catalog rows
        new_chunk_days read when the table holds just the chunks up to its
        watermark (its record says so and it is at the snapshot the record
        names), else from the stored data files' bounds (decision 0036). -#}
    {%- set days = new_days -%}
    {%- set from_catalog = days is not none and after_chunk > 0 and state['chunks_bounded']
        and state['written_snapshot_id'] == state['snapshot_id']
        and days | selectattr('incomplete_rows', 'gt', 0) | list | length == 0 -%}
    {%- set rows = [] -%}
    {%- if from_catalog -%}
        {%- for day in days -%}
            {#- The chunks before the new ones span at least the stored rows'
                times, and count at least as many points. -#}
            {%- do rows.append([
                day['day'],
                day['stored_rows'] > 0 and day['stored_min_time_ns'] <= day['new_max_time_ns']
                    and day['stored_max_time_ns'] >= day['new_min_time_ns'],
                day['new_points'], day['stored_points'], day['new_min_time_ns'], day['new_max_time_ns'],
            ]) -%}
        {%- endfor -%}
    {%- else -%}
        {%- for row in run_query(sql).rows -%}
            {%- do rows.append([row[0], row[1] > 0, row[2], row[3], row[4], row[5]]) -%}
        {%- endfor -%}
    {%- endif -%}
    {%- for row in rows -%}
        {%- do plan['days'].append(row[0]) -%}
        {%- if row[1] -%}
            {%- do overlapping_in_time.append(row[0]) -%}
            {%- do counts.update({row[0]: (row[2] or 0, row[3])}) -%}
            {%- do new_times.update({row[0]: (row[4], row[5])}) -%}
        {%- endif -%}
    {%- endfor -%}
    {#- The stored keys are asked unless the table's last write replaced stored
        rows (state['keys_shared']): then the new points are most likely a
        re-delivery, and the merge itself finds them (decision 0038). -#}
    {%- if overlapping_in_time and hashes_trusted and not state['keys_shared'] -%}
        {%- set days = "date'" ~ overlapping_in_time | join("', date'") ~ "'" -%}
        {%- set layout = tsdedup.point_layout(measurement_name, after_chunk, layout_rows) -%}
        {%- do plan.update({'layout': layout}) -%}
        {%- set key_sql -%}
        with new_keys as (
            select
                to_date({{ tsdedup.time_from_ns('p.time_ns') }}) as partition_day,
                p.time_ns,
                {{ tsdedup.point_series_hash(tags, layout) }} as series_hash
        {{ tsdedup.point_rows(measurement_name, layout) | indent(8) }}
                and p.chunk_seq > {{ after_chunk }}
        )

        select
            cast(n.partition_day as string) as partition_day,
            min(n.time_ns) as min_time_ns,
            max(n.time_ns) as max_time_ns
        from new_keys as n
        left semi join (
            -- only the stored keys of the days in question, in the new points' times there
            select time_ns, series_hash
            from {{ relation }}
            where
                {%- for day in overlapping_in_time %}
                {{ 'or ' if not loop.first }}({{ tsdedup.day_predicates('`time`', [day]) }}
                {%- if new_times[day][0] is not none and new_times[day][1] is not none %}
                    and time_ns between {{ new_times[day][0] }} and {{ new_times[day][1] }}
                {%- endif %})
                {%- endfor %}
        ) as s
            on s.time_ns = n.time_ns and s.series_hash = n.series_hash
        where n.partition_day in ({{ days }})
        group by n.partition_day
        {%- endset -%}
        {%- set known = {} -%}
        {%- for row in run_query(key_sql).rows -%}
            {%- do known.update({row[0]: [row[1] | int, row[2] | int]}) -%}
        {%- endfor -%}
        {%- do plan.update({'key_checked_days': overlapping_in_time}) -%}
        {%- for day in overlapping_in_time if day in known -%}
            {%- do plan['overlapping_days'].append(day) -%}
        {%- endfor -%}
        {%- if known -%}
            {%- set bounds = known.values() | list -%}
            {%- do plan.update({'key_times': [
                bounds | map(attribute=0) | min, bounds | map(attribute=1) | max
            ]}) -%}
        {%- endif -%}
    {%- else -%}
        {%- do plan.update({'overlapping_days': overlapping_in_time,
            'keys_not_asked': overlapping_in_time | length > 0 and hashes_trusted}) -%}
        {#- No stored row outside the new points' times can share a key with one. -#}
        {%- set bounds = new_times.values() | list -%}
        {%- if bounds and (bounds | map(attribute=0) | list + bounds | map(attribute=1) | list) | select('none') | list | length == 0 -%}
            {%- do plan.update({'key_times': [bounds | map(attribute=0) | min, bounds | map(attribute=1) | max]}) -%}
        {%- endif -%}
    {%- endif -%}
    {%- if plan['overlapping_days'] -%}
        {%- set totals = namespace(new_points=0, stored_rows=0) -%}
        {%- for day in plan['overlapping_days'] -%}
            {%- set totals.new_points = totals.new_points + counts[day][0] -%}
            {%- set totals.stored_rows = totals.stored_rows + counts[day][1] -%}
        {%- endfor -%}
        {%- do plan.update({'mode': 'merge' if totals.new_points < totals.stored_rows else 'overwrite'}) -%}
    {%- endif -%}
    {{ return(plan) }}
{% endmacro %}
