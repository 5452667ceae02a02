{#
    The tag order that every day partition a run writes shares, or none when
    they differ or a day has no key yet. `days` lists the ISO dates the run
    writes; none means every day of the measurement (a rebuild). Tags of the
    key that are not columns of the table are left out: they sort nothing.

    With one shared key the rows are sorted by plain columns (day, tags in key
    order, time_ns), which Spark sorts faster than by the per-day key
    expression the general case needs.
#}
{% macro shared_sort_key(sort_keys_relation, measurement_name, tag_columns, days=none) %}
    {#- In a dbt unit test the relation is a CTE of fixture rows, not a table to query. -#}
    {%- if not execute or days == [] or (sort_keys_relation | string).startswith('__dbt__cte__') -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set sql -%}
        select
            count(distinct partition_key) as distinct_keys,
            count(*) as days_with_key,
            to_json(min(partition_key)) as partition_key
        from {{ sort_keys_relation }}
        where
            measurement = {{ tsdedup.string_literal(measurement_name) }}
            {%- if days is not none %}
            and partition_day in (date'{{ days | join("', date'") }}')
            {%- endif %}
    {%- endset -%}
    {%- set row = run_query(sql).rows[0] -%}
    {%- if row['distinct_keys'] != 1 or (days is not none and row['days_with_key'] != days | length) -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(fromjson(row['partition_key']) | reject('equalto', 'time') | select('in', tag_columns) | list) }}
{% endmacro %}
