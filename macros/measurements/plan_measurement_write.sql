{#
    How an incremental run writes a measurement table, decided from metadata
    alone (IOx: never sort-merge what cannot hold a duplicate):

      - the day partitions the chunks after `after_chunk` have points in, with
        their time range in each, from the chunk catalog `catalog_relation`;
      - the time range of every data file of the table in those partitions,
        from Iceberg's `files` metadata table (column bounds of `time_ns`).

    If no stored file of a touched partition overlaps the new points' time range
    there, no stored row can share a key with them: the run deduplicates the new
    chunks among themselves and appends them (mode 'append'; nothing stored is
    read or rewritten). Otherwise it merges them with the stored rows of the
    touched partitions and overwrites those (mode 'overwrite').

    Returns {'mode': 'append' | 'overwrite', 'days': [ISO dates],
    'overlapping_days': [ISO dates]}.
#}
{% macro plan_measurement_write(relation, catalog_relation, measurement_name, after_chunk) %}
    {%- if not execute -%}
        {{ return({'mode': 'overwrite', 'days': [], 'overlapping_days': []}) }}
    {%- endif -%}
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
    {%- set plan = {'mode': 'append', 'days': [], 'overlapping_days': []} -%}
    {%- for row in run_query(sql).rows -%}
        {%- do plan['days'].append(row[0]) -%}
        {%- if row[1] > 0 -%}
            {%- do plan['overlapping_days'].append(row[0]) -%}
            {%- do plan.update({'mode': 'overwrite'}) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(plan) }}
{% endmacro %}
