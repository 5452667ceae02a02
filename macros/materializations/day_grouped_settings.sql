{#
    The Spark settings a rebuild that reads the raw log's day partitions in
    place turns on for its statement (decision 0034): Spark's use of a
    source's partitioning, and Iceberg's report of it (one input partition per
    partition value).
#}
{% macro day_grouped_settings() %}
    {{- return([
        'spark.sql.sources.v2.bucketing.enabled',
        'spark.sql.iceberg.planning.preserve-data-grouping',
    ]) -}}
{% endmacro %}
