{#
    Whether `relation`, an existing view as dbt's relation cache lists it (with
    its `describe extended` text), was created from `sql` (its property
    tsdedup.sql_md5, see spark__create_view_as) and selects no `*`.
#}
{% macro view_is_current(relation, sql) %}
    {%- if relation is none or not relation.is_view or not relation.information -%}
        {{ return(false) }}
    {%- endif -%}
    {%- if modules.re.search('(?i)(select|distinct|,|[.])\\s*[*]\\s*(,|from\\b|$)', sql) -%}
        {{ return(false) }}
    {%- endif -%}
    {{ return(('tsdedup.sql_md5=' ~ local_md5(sql)) in relation.information) }}
{% endmacro %}
