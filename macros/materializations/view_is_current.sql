{#
    Whether `relation`, an existing view as dbt's relation cache lists it (with
    its `show table extended` text), was created from `sql` (its property
    tsdedup.sql_md5, see spark__create_view_as, and its metastore text) and
    selects no `*`.
#}
{% macro view_is_current(relation, sql) %}
    {%- if relation is none or not relation.is_view or not relation.information -%}
        {{ return(false) }}
    {%- endif -%}
    {%- if modules.re.search('(?i)(select|distinct|,|[.])\\s*[*]\\s*(,|from\\b|$)', sql) -%}
        {{ return(false) }}
    {%- endif -%}
    {#- The metastore's text too: a run that died between the view's replace and
        tsdedup_set_view_text left the new MD5 beside the old text. -#}
    {{ return(('tsdedup.sql_md5=' ~ local_md5(sql)) in relation.information
        and ('View Original Text: ' ~ sql) in relation.information) }}
{% endmacro %}
