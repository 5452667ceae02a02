{# The columns of a relation, quoted and comma-separated (read from the session, adapter.tsdedup_columns). #}
{% macro quoted_column_list(relation) %}
    {%- set names = adapter.tsdedup_columns(relation) | map(attribute='name') | list -%}
    {{ return(tsdedup.quote_identifiers(names) | join(', ')) }}
{% endmacro %}
