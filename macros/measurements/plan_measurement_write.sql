{#
    How an incremental run writes a measurement table, decided from metadata
    alone (IOx: never sort-merge what cannot hold a duplicate):

      - the day partitions the chunks after `after_chunk` have points in, with
        their time range in each, from the chunk catalog `catalog_relation`;
      - the time range of every data file of the table in those partitions,
        from Iceberg's `files` metadata table (column bounds of `time_ns`).

    If no stored file of a touched partition overlaps the new points' time range
    there, no stored row can share a key with them. Where files do overlap in
    time (real-time data: every chunk covers the same minutes), the key index
    (update_key_index) tells whether any new point's key may be stored there;
    it is asked only when it is current (it holds the keys of every chunk up to
    the watermark, and of the table's current snapshot), else its answer counts
    as "maybe".

    No touched partition can hold a new key: the run deduplicates the new
    chunks among themselves and appends them (mode 'append'; nothing stored is
    read or rewritten). Otherwise it merges them with the stored rows of the
    touched partitions and overwrites those (mode 'overwrite').

    Returns {'mode': 'append' | 'overwrite', 'days': [ISO dates],
    'overlapping_days': [ISO dates], 'index_checked_days': [ISO dates]}.
#}
{% macro plan_measurement_write(relation, catalog_relation, points_relation, measurement_name, after_chunk) %}
    {%- if not execute -%}
        {{ return({'mode': 'overwrite', 'days': [], 'overlapping_days': [], 'index_checked_days': []}) }}
    {%- endif -%}
    {%- set index = tsdedup.key_index_relation() -%}
    {%- set properties = tsdedup.table_properties(relation) -%}
    {%- set index_current = properties.get('tsdedup.key_index_chunk_seq') == after_chunk | string
        and properties.get('tsdedup.key_index_snapshot_id') == properties.get('current-snapshot-id', 'none') -%}
    {%- set sql -%}
        with new_points as (
            select
                partition_day,
                min(min_time_ns) as min_time_ns,
                max(max_time_ns) as max_time_ns
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
                readable_metrics.time_ns.upper_bound as max_time_ns
            from {{ relation }}.files
        )

        select
            cast(n.partition_day as string) as partition_day,
            count(s.partition_day) as overlapping_files
        from new_points as n
        left join stored_files as s
            on
                n.partition_day = s.partition_day
                -- unknown bounds (rows recorded before the catalog kept them) overlap
                and coalesce(s.min_time_ns <= n.max_time_ns and s.max_time_ns >= n.min_time_ns, true)
        group by n.partition_day
        order by partition_day
    {%- endset -%}
    {%- set plan = {'mode': 'append', 'days': [], 'overlapping_days': [], 'index_checked_days': []} -%}
    {%- set overlapping_in_time = [] -%}
    {%- for row in run_query(sql).rows -%}
        {%- do plan['days'].append(row[0]) -%}
        {%- if row[1] > 0 -%}
            {%- do overlapping_in_time.append(row[0]) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if overlapping_in_time and index_current -%}
        {%- set days = "date'" ~ overlapping_in_time | join("', date'") ~ "'" -%}
        {%- set key_sql -%}
        with new_keys as (
            select
                to_date({{ tsdedup.time_from_ns('time_ns') }}) as partition_day,
                {{ tsdedup.key_hash(tags_map='tags') }} as key_hash
            from {{ points_relation }}
            where
                measurement = {{ tsdedup.string_literal(measurement_name) }}
                and chunk_seq > {{ after_chunk }}
        )

        select cast(n.partition_day as string) as partition_day
        from new_keys as n
        left semi join (
            -- only the index partitions of the days in question
            select partition_day, key_hash
            from {{ index }}
            where
                measurement = {{ tsdedup.string_literal(measurement_name) }}
                and partition_day in ({{ days }})
        ) as i
            on i.partition_day = n.partition_day and i.key_hash = n.key_hash
        where n.partition_day in ({{ days }})
        group by n.partition_day
        {%- endset -%}
        {%- set days_with_known_keys = run_query(key_sql).columns[0].values() | list -%}
        {%- do plan.update({'index_checked_days': overlapping_in_time}) -%}
        {%- for day in overlapping_in_time if day in days_with_known_keys -%}
            {%- do plan['overlapping_days'].append(day) -%}
        {%- endfor -%}
    {%- else -%}
        {%- do plan.update({'overlapping_days': overlapping_in_time}) -%}
    {%- endif -%}
    {%- if plan['overlapping_days'] -%}
        {%- do plan.update({'mode': 'overwrite'}) -%}
    {%- endif -%}
    {{ return(plan) }}
{% endmacro %}
