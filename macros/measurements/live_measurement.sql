{#
    The body of a live view, `{{ tsdedup.live_measurement(ref('h2o')) }}`: the
    measurement table with the chunks ingested after its watermark,
    deduplicated at query time under its winner rule. docs/internals.md,
    "Live views"; decision 0027.
#}
{% macro live_measurement(table) %}
    {%- do ref('int_accepted_points') -%}
    {%- do ref('int_column_types') -%} {#- read by measurement_columns #}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- set state = tsdedup.read_measurement_state(table) -%}
    {%- if state['measurement'] is none or state['watermark'] is none -%}
        {% do exceptions.raise_compiler_error("tsdedup.live_measurement: " ~ table ~ " is not a measurement table built by tsdedup.measurement (it has no tsdedup.measurement property); build it first") %}
    {%- endif -%}
    {%- set measurement_name = state['measurement'] -%}
    {%- set mode = state['dedup_mode'] or 'fields' -%}
    {%- set watermark = state['watermark'] -%}
    {%- set columns = tsdedup.measurement_columns(measurement_name) -%}
    {%- set stored_columns = [] -%}
    {%- for column in adapter.get_columns_in_relation(table) -%}
        {%- do stored_columns.append(column.name) -%}
    {%- endfor -%}
    {%- set sql = tsdedup._live_view_sql(table, measurement_name, mode, columns, stored_columns, watermark) -%}
    {#- A view built at an earlier watermark is kept while the chunks since
        then are few (var tsdedup_live_view_lag): re-reading chunks the table
        holds changes nothing, and keeping the view saves dropping and
        creating it (decision 0027). Its SQL names the watermark it reads
        after; it is kept only if its SQL (in the relation cache's text of
        it) is what this macro writes for that watermark. -#}
    {%- set existing = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) -%}
    {%- set lag = var('tsdedup_live_view_lag', 0.1) -%}
    {%- if existing is not none and existing.information and lag and not should_full_refresh() -%}
        {%- set found = modules.re.search("-- the chunks after chunk ([0-9]+), the table's watermark", existing.information) -%}
        {%- set built_at = found.group(1) | int if found else none -%}
        {%- if built_at is not none and built_at < watermark and watermark - built_at <= lag * watermark -%}
            {%- set kept_sql = tsdedup._live_view_sql(table, measurement_name, mode, columns, stored_columns, built_at) -%}
            {%- if (kept_sql | trim) in existing.information -%}
                {{ log("tsdedup: " ~ this ~ " kept: built at chunk " ~ built_at ~ ", " ~ (watermark - built_at)
                    ~ " chunk(s) before the table's watermark " ~ watermark ~ " (var tsdedup_live_view_lag: " ~ lag ~ ")") }}
                {%- set sql = kept_sql -%}
            {%- endif -%}
        {%- endif -%}
    {%- endif -%}
    {%- set limit = var('tsdedup_max_view_text', 32700) -%}
    {%- if limit and sql | length > limit | int -%}
        {% do exceptions.raise_compiler_error(
            "tsdedup.live_measurement: the live view of " ~ table ~ " (" ~ (columns['tags'] | length)
            ~ " tags, " ~ (columns['fields'] | length) ~ " fields) is " ~ (sql | length)
            ~ " characters of SQL, more than the metastore keeps of a view's text (var tsdedup_max_view_text: "
            ~ limit ~ ", the embedded Derby metastore's limit). The table itself is complete; query it "
            ~ "instead, disable this live view, or use a metastore without the limit and set "
            ~ "tsdedup_max_view_text to null") %}
    {%- endif -%}
    {{ return(sql) }}
{% endmacro %}
