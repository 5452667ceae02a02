{# The columns of a relation, quoted and comma-separated. #}
{% macro quoted_column_list(relation) %}
    {%- set names = adapter.get_columns_in_relation(relation) | map(attribute='name') | list -%}
    {{ return(tsdedup.quote_identifiers(names) | join(', ')) }}
{% endmacro %}
