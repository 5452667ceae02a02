{#
    Whether a full rebuild of `measurement_name` reads the raw log's day
    partitions in place, with no exchange of its points: every point file in
    a day partition, and at least as many days as shuffle partitions.
    _measurements__macros.yml; decision 0034.
#}
{% macro day_grouped_read(measurement_name) %}
    {%- if not execute or not var('tsdedup_day_grouped_rebuild', true) -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set raw = ref('raw_chunks') -%}
    {%- set cached = adapter.get_relation(raw.database, raw.schema, raw.identifier) -%}
    {#- (A log this run created has no information cached, and day partitions.) -#}
    {%- if cached is none or (cached.information and 'tsdedup.day_partitions=true' not in cached.information) -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set sql -%}
        select
            count(*) - count(f.`partition`.partition_day) as files_without_day,
            count(distinct f.`partition`.partition_day) as days
        from {{ raw }}.files as f
        where
            f.`partition`.row_kind = 'point'
            and f.`partition`.measurement = {{ tsdedup.string_literal(measurement_name) }}
    {%- endset -%}
    {%- set found = run_query(sql).rows[0] -%}
    {%- set tasks = tsdedup.spark_setting('spark.sql.shuffle.partitions') or '200' -%}
    {{ return(found['files_without_day'] == 0 and found['days'] >= tasks | int) }}
{% endmacro %}
