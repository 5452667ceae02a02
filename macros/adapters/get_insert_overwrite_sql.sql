{#
    dbt-spark's incremental `insert overwrite`, with every column name quoted safely.
    dbt-spark wraps a column name in backticks without doubling a backtick
    inside it, so a tag or field named like `x`; drop table y; --` broke this
    statement for its measurement table (and a crafted name could have changed
    it). Otherwise the same statement as dbt-spark 1.11's.
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
