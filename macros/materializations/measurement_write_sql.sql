{#
    The write statement of an incremental measurement run. The model's SQL
    starts with the write mode plan_measurement_write chose from metadata:

      - `/* tsdedup write mode: append */`: nothing stored can share a key with
        the new points; they are inserted into the table;
      - `/* tsdedup write mode: merge, ... */`: they are merged into the stored
        rows row by row (merge_measurement_sql);
      - `/* tsdedup write mode: overwrite */`: they are deduplicated with the
        stored rows of the day partitions they touch, which are overwritten;
      - `/* tsdedup write mode: replace, ... */`: after a retraction, the rows
        of the days rebuilt from the raw log replace those days' rows
        (merge_measurement_sql).

    Appends and overwrites come sorted by each day's own key, so the table's
    write order (set for a merge) is cleared first. `state` is the table's
    state record (read_measurement_state), read before this run wrote.
#}
{% macro measurement_write_sql(source, target, existing, state) %}
    {%- set header = tsdedup.write_mode_header() -%}
    {%- if header.startswith('/* tsdedup write mode: merge') or header.startswith('/* tsdedup write mode: replace') -%}
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
