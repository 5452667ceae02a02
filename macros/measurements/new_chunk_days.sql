{#
    What an incremental run of a measurement model plans from, in one query:
    the measurement's columns, where the chunks after `after_chunk` keep their
    values (point_layout), and each day partition they touch as the chunk
    catalog sums it up (_measurements__macros.yml; decision 0036).
#}
{% macro new_chunk_days(measurement_name, after_chunk) %}
    {%- set catalog = ref('sort_key_catalog') -%}
    {%- set column_types = ref('int_column_types') -%}
    {%- if not execute or (catalog | string).startswith('__dbt__cte__') -%}
        {{ return({'columns': none, 'layout_rows': none, 'days': none}) }}
    {%- endif -%}
    {%- set after = after_chunk | int -%}
    {%- set layout_sql = tsdedup.point_layout_sql(measurement_name, after) -%}
    {%- set sql -%}
        select
            (
                -- the column catalog's rows of the measurement, ordered by name
                select to_json(array_sort(collect_list(struct(column_name, column_type))))
                from {{ column_types }}
                where measurement = {{ tsdedup.string_literal(measurement_name) }}
            ) as columns,
            {%- if layout_sql is not none %}
            (
                -- the columns the new chunks write, and where (point_layout)
                select to_json(collect_list(struct(*)))
                from (
                    {{ layout_sql | indent(20) }}
                )
            ) as layout_rows,
            {%- endif %}
            (
                -- each day the new chunks touch: their points and times, the
                -- chunks before them there (which the table may hold), and the
                -- day's sort key after its last chunk (sort_keys' rule)
                select to_json(collect_list(struct(*)), map('ignoreNullFields', 'false'))
                from (
                    select
                        cast(partition_day as string) as day,
                        sum(if(chunk_seq > {{ after }}, point_count, 0)) as new_points,
                        min(if(chunk_seq > {{ after }}, min_time_ns, null)) as new_min_time_ns,
                        max(if(chunk_seq > {{ after }}, max_time_ns, null)) as new_max_time_ns,
                        count_if(chunk_seq <= {{ after }}) as stored_rows,
                        sum(if(chunk_seq <= {{ after }}, point_count, 0)) as stored_points,
                        min(if(chunk_seq <= {{ after }}, min_time_ns, null)) as stored_min_time_ns,
                        max(if(chunk_seq <= {{ after }}, max_time_ns, null)) as stored_max_time_ns,
                        -- rows recorded before the catalog kept counts and times
                        count_if(point_count is null or min_time_ns is null or max_time_ns is null) as incomplete_rows,
                        max_by(partition_key, chunk_seq) as partition_key
                    from {{ catalog }}
                    where measurement = {{ tsdedup.string_literal(measurement_name) }}
                    group by partition_day
                    having max(chunk_seq) > {{ after }}
                )
            ) as days
    {%- endset -%}
    {%- set row = run_query(sql).rows[0] -%}
    {%- set days = fromjson(row['days'] or '[]') | sort(attribute='day') -%}
    {{ return({
        'columns': fromjson(row['columns'] or '[]'),
        'layout_rows': none if layout_sql is none else fromjson(row['layout_rows'] or '[]'),
        'days': days,
    }) }}
{% endmacro %}
