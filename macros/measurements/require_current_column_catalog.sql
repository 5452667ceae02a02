{#
    Stop a measurement model whose column catalog has not seen the columns of
    the chunks it is about to merge, with the command that builds it first
    (_measurements__macros.yml).
#}
{% macro require_current_column_catalog(measurement_name, after_chunk) %}
    {%- set catalog = ref('int_column_types') -%}
    {#- In a dbt unit test the catalog is a CTE of fixture rows, not a table to query. -#}
    {%- if not execute or (catalog | string).startswith('__dbt__cte__') -%}
        {{ return(none) }}
    {%- endif -%}
    {%- for resource in selected_resources if resource.startswith('model.') and resource.endswith('.int_column_types') -%}
        {{ return(none) }}
    {%- endfor -%}
    {%- if tsdedup.column_catalog_gaps(catalog, measurement_name, after_chunk) > 0 -%}
        {% do exceptions.raise_compiler_error(
            "tsdedup: the column catalog " ~ catalog ~ " has not caught up with the raw log for measurement '"
            ~ measurement_name ~ "' (chunks after " ~ after_chunk ~ " use columns it does not list, or"
            ~ " a chunk it took a column's type from was retracted); build it first, e.g. `tsdedup run --select +"
            ~ this.identifier ~ "`") %}
    {%- endif -%}
{% endmacro %}
