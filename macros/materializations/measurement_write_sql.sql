{#
    The write statement of an incremental measurement run, by the write mode
    its SQL starts with (append, merge, overwrite, replace); `state` is the
    table's state record as read before this run wrote. docs/internals.md,
    "The write modes".
#}
{% macro measurement_write_sql(source, target, existing, state) %}
    {%- set header = tsdedup.write_mode_header() -%}
    {%- if tsdedup.is_row_level_write(header) -%}
        {{ return(tsdedup.merge_measurement_sql(source, target, header, state)) }}
    {%- endif -%}
    {%- do tsdedup.set_write_order(target, [], state) -%}
    {%- if header == '/* tsdedup write mode: append */' -%}
        {{ return(get_insert_into_sql(source, target)) }}
    {%- elif header == '/* tsdedup write mode: overwrite */' -%}
        {{ return(get_insert_overwrite_sql(source, target, existing)) }}
    {%- endif -%}
    {% do exceptions.raise_compiler_error("tsdedup.measurement_write_sql: " ~ target
        ~ ": the model's SQL does not start with a write mode comment (is it a tsdedup.measurement model?): "
        ~ header[:200]) %}
{% endmacro %}
