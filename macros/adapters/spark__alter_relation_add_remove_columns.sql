{#
    dbt-spark 1.11's statement that adds a table's new columns
    (on_schema_change), with every column name quoted safely: dbt-spark does
    not double a backtick inside a name (docs/reliability.md, section 5).
#}
{% macro spark__alter_relation_add_remove_columns(relation, add_columns, remove_columns) %}
    {%- if remove_columns -%}
        {% do exceptions.raise_compiler_error(('Iceberg' if relation.is_iceberg else 'Apache Spark') ~ ' does not support dropping columns from tables') %}
    {%- endif -%}
    {%- if add_columns -%}
        {%- set items = [] -%}
        {%- for column in add_columns -%}
            {%- do items.append(tsdedup.quote_identifier(column.name) ~ ' ' ~ column.data_type) -%}
        {%- endfor -%}
        {%- do run_query('alter ' ~ relation.type ~ ' ' ~ relation ~ ' add columns ' ~ items | join(', ')) -%}
    {%- endif -%}
{% endmacro %}
