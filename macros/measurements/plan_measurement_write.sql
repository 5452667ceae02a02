{#
    How an incremental run writes a measurement table, decided from metadata
    alone (IOx: never sort-merge what cannot hold a duplicate):

      - the day partitions the chunks after `after_chunk` have points in, with
        their time range and point count in each, from the chunk catalog
        `catalog_relation`;
      - the time range and row count of every data file of the table in those
        partitions, from Iceberg's `files` metadata table (column bounds of
        `time_ns`; delete files carry no time bounds and are not counted).

    If no stored file of a touched partition overlaps the new points' time range
    there, no stored row can share a key with them. Where files do overlap in
    time (real-time data: every chunk covers the same minutes), the stored rows'
    `time_ns` and `series_hash` columns, in the new points' time range of each
    such day, tell whether any new point's key may be stored there (decision
    0026); they are asked only when the table's snapshot
    is the one its state record names (no one else wrote since), else the
    answer counts as "maybe".

      - 'append': no touched partition can hold a new key. The run deduplicates
        the new chunks among themselves and appends them; nothing stored is read
        or rewritten.
      - 'merge': some can, and the new points there are fewer than the rows
        stored there. The run merges the deduplicated new points into the table
        row by row (Iceberg MERGE, merge-on-read): a stored row that shares a key
        with a new point is marked deleted and written again with the merged
        values, every other new point is inserted. No stored data file is
        rewritten; compaction folds the deletes in later.
      - 'overwrite': the new points there are as many as the stored rows or more
        (a backfill). The run merges them with the stored rows of the touched
        partitions and overwrites those partitions, which costs about what a
        row-level merge would and leaves no deletes behind.

    `state` is the table's state record (read_measurement_state), `tags` the
    measurement's tags (measurement_columns).
    Returns {'mode': 'append' | 'merge' | 'overwrite', 'days': [ISO dates],
    'overlapping_days': [ISO dates], 'key_checked_days': [ISO dates],
    'key_times': [min, max] | none, 'layout': point_layout's answer for the
    new chunks, when the key check asked it (it reads their tags from the
    flat columns when it can), else absent}.
    `overlapping_days` are the partitions that may hold a new key. `key_times`,
    when the stored keys were asked, is the time_ns range of the new points whose
    key it may hold: no stored row outside it can share a key with a new point,
    so a row-level merge reads only the stored rows inside it.
#}
{% macro plan_measurement_write(relation, catalog_relation, measurement_name, after_chunk, state, tags) %}
    {%- if not execute -%}
        {{ return({'mode': 'overwrite', 'days': [], 'overlapping_days': [], 'key_checked_days': [], 'key_times': none}) }}
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
            count(s.partition_day) as overlapping_files,
            max(n.point_count) as new_points,
            coalesce(sum(s.record_count), 0) as stored_rows,
            max(n.min_time_ns) as min_time_ns,
            max(n.max_time_ns) as max_time_ns
        from new_points as n
        left join stored_files as s
            on
                n.partition_day = s.partition_day
                -- unknown bounds (rows recorded before the catalog kept them) overlap
                and coalesce(s.min_time_ns <= n.max_time_ns and s.max_time_ns >= n.min_time_ns, true)
        group by n.partition_day
        order by partition_day
    {%- endset -%}
    {%- set plan = {'mode': 'append', 'days': [], 'overlapping_days': [], 'key_checked_days': [], 'key_times': none} -%}
    {%- set overlapping_in_time = [] -%}
    {%- set counts = {} -%}
    {%- set new_times = {} -%}
    {%- for row in run_query(sql).rows -%}
        {%- do plan['days'].append(row[0]) -%}
        {%- if row[1] > 0 -%}
            {%- do overlapping_in_time.append(row[0]) -%}
            {%- do counts.update({row[0]: (row[2] or 0, row[3])}) -%}
            {%- do new_times.update({row[0]: (row[4], row[5])}) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if overlapping_in_time and hashes_trusted -%}
        {%- set days = "date'" ~ overlapping_in_time | join("', date'") ~ "'" -%}
        {%- set layout = tsdedup.point_layout(measurement_name, after_chunk) -%}
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
        {%- do plan.update({'overlapping_days': overlapping_in_time}) -%}
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
