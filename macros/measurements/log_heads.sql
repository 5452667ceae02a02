{#
    Where the logs a measurement table follows stand, in one query: the last
    chunk and the last retraction, and with `measurement_name` what came after
    chunk `after_chunk` for it: its new columns, and each day partition the
    new chunks touch as the chunk catalog sums it up (_measurements__macros.yml;
    decisions 0018, 0036).
#}
{% macro log_heads(measurement_name=none, after_chunk=0) %}
    {#- ref() before anything returns: dbt learns the dependencies while parsing. -#}
    {%- set catalog = ref('sort_key_catalog') -%}
    {%- set column_types = ref('int_column_types') -%}
    {%- set empty = {'chunk_seq': 0, 'retraction_seq': 0, 'new_catalog_rows': 0, 'new_columns': 0, 'columns': none, 'days': none} -%}
    {#- In a dbt unit test the relations are CTEs of fixture rows, not tables to query. -#}
    {%- if not execute or (catalog | string).startswith('__dbt__cte__') -%}
        {{ return(empty) }}
    {%- endif -%}
    {%- set after = after_chunk | int -%}
    {%- set heads_sql -%}
        select
            (select coalesce(max(chunk_seq), 0) from {{ catalog }}) as chunk_seq,
            (
                select coalesce(max(retraction_seq), 0)
                from {{ tsdedup.retracted_chunks_relation() }}
            ) as retraction_seq
            {%- if measurement_name is not none %},
            (
                -- its column catalog, ordered by name
                select to_json(array_sort(collect_list(struct(column_name, column_type, first_chunk_seq))))
                from {{ column_types }}
                where measurement = {{ tsdedup.string_literal(measurement_name) }}
            ) as columns
            {%- endif %}
    {%- endset -%}
    {%- if measurement_name is none -%}
        {%- set row = run_query(heads_sql).rows[0] -%}
        {{ return({'chunk_seq': row['chunk_seq'] | int, 'retraction_seq': row['retraction_seq'] | int}) }}
    {%- endif -%}
    {%- set sql -%}
        with heads as (
            {{ heads_sql | indent(8) }}
        ),

        -- each day the new chunks touch: their points and times, the chunks
        -- before them there (which the table may hold), and the day's sort
        -- key after the last chunk
        new_days as (
            select
                cast(partition_day as string) as day,
                count_if(chunk_seq > {{ after }}) as new_rows,
                sum(if(chunk_seq > {{ after }}, point_count, 0)) as new_points,
                min(if(chunk_seq > {{ after }}, min_time_ns, null)) as new_min_time_ns,
                max(if(chunk_seq > {{ after }}, max_time_ns, null)) as new_max_time_ns,
                count_if(chunk_seq <= {{ after }}) as stored_rows,
                sum(if(chunk_seq <= {{ after }}, point_count, 0)) as stored_points,
                min(if(chunk_seq <= {{ after }}, min_time_ns, null)) as stored_min_time_ns,
                max(if(chunk_seq <= {{ after }}, max_time_ns, null)) as stored_max_time_ns,
                -- rows recorded before the catalog kept counts and times
                count_if(point_count is null or min_time_ns is null or max_time_ns is null) as incomplete_rows,
                to_json(max_by(partition_key, chunk_seq)) as partition_key
            from {{ catalog }}
            where measurement = {{ tsdedup.string_literal(measurement_name) }}
            group by partition_day
            having max(chunk_seq) > {{ after }}
        )

        select h.*, d.*
        from heads as h
        left join new_days as d
            on true
        order by d.day
    {%- endset -%}
    {%- set result = run_query(sql) -%}
    {%- set row = result.rows[0] -%}
    {%- set days = [] -%}
    {%- for day in result.rows if day['day'] is not none -%}
        {%- set entry = {} -%}
        {%- for name in ['new_rows', 'new_points', 'new_min_time_ns', 'new_max_time_ns', 'stored_rows',
            'stored_points', 'stored_min_time_ns', 'stored_max_time_ns', 'incomplete_rows'] -%}
            {%- do entry.update({name: none if day[name] is none else day[name] | int}) -%}
        {%- endfor -%}
        {%- do entry.update({'day': day['day'], 'partition_key': fromjson(day['partition_key'] or 'null')}) -%}
        {%- do days.append(entry) -%}
    {%- endfor -%}
    {%- set columns = fromjson(row['columns'] or '[]') -%}
    {%- set heads = {
        'chunk_seq': row['chunk_seq'] | int,
        'retraction_seq': row['retraction_seq'] | int,
        'new_catalog_rows': days | sum(attribute='new_rows'),
        'new_columns': columns | selectattr('first_chunk_seq', 'gt', after) | list | length,
        'columns': columns,
        'days': days,
    } -%}
    {{ return(heads) }}
{% endmacro %}
