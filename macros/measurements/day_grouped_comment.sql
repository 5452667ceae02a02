{#
    The line a measurement model's compiled SQL carries when its rebuild reads
    the raw log's day partitions in place (day_grouped_read): the
    materialization turns on Spark's storage-partitioned reading for that
    statement only (decision 0034).
#}
{% macro day_grouped_comment() %}
    {{- return('/* tsdedup read: raw log day partitions in place */') -}}
{% endmacro %}
