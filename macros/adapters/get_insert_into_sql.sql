{#
    dbt-spark 1.11's incremental `insert into` (the append strategy), with
    every column name quoted safely: dbt-spark does not double a backtick
    inside a name (docs/reliability.md, section 5, "Found and fixed").
#}
{% macro get_insert_into_sql(source_relation, target_relation) %}
    {%- set dest_cols_csv = tsdedup.quoted_column_list(target_relation) -%}
    insert into table {{ target_relation }}
    select {{ dest_cols_csv }} from {{ source_relation }}
{% endmacro %}
