{#
    Before add_files commits a run's data files (write mode `files`): the
    point columns they bring and the raw log lacks, added in one metadata-only
    `alter table`, a measurement's all together or not at all, as the
    metastore's limit on the name mapping allows (decision 0025).
#}
{% macro add_raw_point_columns(relation, written) %}
    {%- set limit = var('tsdedup_raw_schema_limit', 30000) -%}
    {%- set stored = [] -%}
    {%- set state = namespace(size=0) -%}
    {%- for column in adapter.get_columns_in_relation(relation) -%}
        {%- do stored.append(column.name | lower) -%}
        {%- set state.size = state.size + tsdedup.name_mapping_size(column.name, column.data_type) -%}
    {%- endfor -%}
    {%- set by_measurement = {} -%}
    {%- for row in written.rows if row['point_columns'] -%}
        {%- for pair in row['point_columns'].split(';') -%}
            {%- set name, data_type = pair.split(' ', 1) -%}
            {%- if name | lower not in stored -%}
                {%- do by_measurement.setdefault(row['measurement'], {}).update({name: data_type}) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- set missing = {} -%}
    {%- set left_out = [] -%}
    {%- for measurement, columns in by_measurement | dictsort -%}
        {%- set size = namespace(value=0) -%}
        {%- for name, data_type in columns.items() if name not in missing -%}
            {%- set size.value = size.value + tsdedup.name_mapping_size(name, data_type) -%}
        {%- endfor -%}
        {%- if state.size + size.value <= limit -%}
            {%- do missing.update(columns) -%}
            {%- set state.size = state.size + size.value -%}
        {%- else -%}
            {%- do left_out.append(measurement) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if left_out -%}
        {{ log(relation ~ ': the flat columns of ' ~ (left_out | length) ~ ' measurement(s) would outgrow '
            ~ 'the metastore (tsdedup_raw_schema_limit = ' ~ limit ~ ' characters); their points are read '
            ~ 'from the maps: ' ~ (left_out[:5] | join(', ')) ~ (', ...' if left_out | length > 5 else ''), info=true) }}
    {%- endif -%}
    {%- if missing -%}
        {%- call statement('add_raw_point_columns') -%}
            alter table {{ relation }} add columns (
                {%- for name, data_type in missing | dictsort %}
                {{ tsdedup.quote_identifier(name) }} {{ data_type }}{{ ',' if not loop.last }}
                {%- endfor %}
            )
        {%- endcall -%}
    {%- endif -%}
{% endmacro %}
