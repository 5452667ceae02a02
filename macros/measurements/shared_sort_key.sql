{#
    The tag order every day partition a run writes shares, or none; with one,
    the rows are sorted by plain columns instead of a per-day expression
    (_measurements__macros.yml; decision 0006).
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
