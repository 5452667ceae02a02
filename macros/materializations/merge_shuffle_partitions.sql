{#
    The shuffle partitions of a row-level merge: {'merge': the number set in
    `spark.tsdedup.mergeShufflePartitions`, 'session': the session's
    `spark.sql.shuffle.partitions`}, or none when the setting is absent or
    the same as the session's (the merge runs with the session's own). tsdedup
    sets it to a local session's cores (tsdedup/spark_session.py; decision 0033).
#}
{% macro merge_shuffle_partitions() %}
    {%- set setting = 'spark.tsdedup.mergeShufflePartitions' -%}
    {%- set value = tsdedup.spark_setting(setting) -%}
    {%- if value is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if not value.isdigit() or value | int < 1 -%}
        {% do exceptions.raise_compiler_error("tsdedup: the Spark setting " ~ setting ~ " is '" ~ value
            ~ "'; set it to a number of shuffle partitions (1 or more), or leave it out to merge with spark.sql.shuffle.partitions") %}
    {%- endif -%}
    {%- set session = tsdedup.spark_setting('spark.sql.shuffle.partitions') -%}
    {%- if value | int | string == session -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return({'merge': value | int, 'session': session}) }}
{% endmacro %}
