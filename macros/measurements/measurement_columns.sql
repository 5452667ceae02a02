{#
    The columns of a measurement from the column catalog, or from its rows
    as new_chunk_days read them: tags and fields with their types, ordered by name
    (or as pinned in var('tsdedup_columns')). Returns {'tags': [...], 'fields': [{name, type}]}.
#}
{% macro measurement_columns(measurement_name, catalog_rows=none) %}
    {%- set catalog = ref('int_column_types') -%}
    {#- var('tsdedup_columns') pins the columns of a measurement (used by unit tests). -#}
    {%- set pinned = var('tsdedup_columns', {}) -%}
    {%- if measurement_name in pinned -%}
        {{ return({
            'tags': pinned[measurement_name].get('tags', []),
            'fields': pinned[measurement_name].get('fields', []),
        }) }}
    {%- endif -%}
    {%- if not execute -%}
        {{ return({'tags': [], 'fields': []}) }}
    {%- endif -%}
    {%- set result = {'tags': [], 'fields': []} -%}
    {%- if catalog_rows is none -%}
        {%- set sql -%}
        select column_name, column_type
        from {{ catalog }}
        where measurement = {{ tsdedup.string_literal(measurement_name) }}
        order by column_name
        {%- endset -%}
        {%- set catalog_rows = run_query(sql).rows -%}
    {%- endif -%}
    {%- for row in catalog_rows -%}
        {%- if row['column_type'] == 'tag' -%}
            {%- do result['tags'].append(row['column_name']) -%}
        {%- else -%}
            {%- do result['fields'].append({'name': row['column_name'], 'type': row['column_type']}) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(result) }}
{% endmacro %}
