{#
    dbt-spark's incremental `insert into` (the append strategy), with every
    column name quoted safely.
    dbt-spark wraps a column name in backticks without doubling a backtick
    inside it, so a tag or field named like `x`; drop table y; --` broke this
    statement for its measurement table (and a crafted name could have changed
    it). Otherwise the same statement as dbt-spark 1.11's.
#}
{% macro get_insert_into_sql(source_relation, target_relation) %}
    {%- set dest_cols_csv = tsdedup.quoted_column_list(target_relation) -%}
    insert into table {{ target_relation }}
    select {{ dest_cols_csv }} from {{ source_relation }}
{% endmacro %}
