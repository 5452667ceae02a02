{#
    A predicate: every key of a map column is one of `names` (a NULL or empty map
    has none). `size(NULL)` is -1 with Spark's legacy settings, hence the explicit
    NULL test.
#}
{% macro _only_established_keys(map_column, names) %}
    {%- if not names -%}
        {{ return('(' ~ map_column ~ ' is null or size(' ~ map_column ~ ') = 0)') }}
    {%- endif -%}
    {{ return('(' ~ map_column ~ ' is null or forall(map_keys(' ~ map_column ~ '), k -> k in ' ~ tsdedup.string_list(names) ~ '))') }}
{% endmacro %}
