{#
    dbt-spark's statements that name a table's columns, with every name quoted
    safely: dbt-spark wraps a column name in backticks without doubling a
    backtick inside it, so a tag or field named like `x`; drop table y; --`
    broke the incremental insert and the add-columns statement of its
    measurement table (and a crafted name could have changed them). Otherwise
    the same statements as dbt-spark 1.11's.
#}
{% macro get_insert_overwrite_sql(source_relation, target_relation, existing_relation) %}
    {%- set dest_cols_csv = tsdedup.quoted_column_list(target_relation) -%}
    {%- if existing_relation.is_iceberg %}
    insert overwrite {{ target_relation }}
    {%- else %}
    insert overwrite table {{ target_relation }}
    {{ partition_cols(label="partition") }}
    {%- endif %}
    select {{ dest_cols_csv }} from {{ source_relation }}
{% endmacro %}

{% macro get_insert_into_sql(source_relation, target_relation) %}
    {%- set dest_cols_csv = tsdedup.quoted_column_list(target_relation) -%}
    insert into table {{ target_relation }}
    select {{ dest_cols_csv }} from {{ source_relation }}
{% endmacro %}

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

{# The columns of a relation, quoted and comma-separated. #}
{% macro quoted_column_list(relation) %}
    {%- set names = adapter.get_columns_in_relation(relation) | map(attribute='name') | list -%}
    {{ return(tsdedup.quote_identifiers(names) | join(', ')) }}
{% endmacro %}
