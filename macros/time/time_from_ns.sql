{#
    The TIMESTAMP of a nanosecond time: microseconds, rounded towards the past
    (so a point's `time` and its day partition never move to a later day).
#}
{% macro time_from_ns(time_ns_column) %}
    {{- return('timestamp_micros(' ~ tsdedup.floor_div(time_ns_column, 1000) ~ ')') -}}
{% endmacro %}
