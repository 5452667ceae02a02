{#
    The raw log table's folder: from dbt's relation cache (its `describe
    extended` text) when the table exists, else where a new table of its
    schema is created (the schema's location, then the table's name). None
    when neither is known.
#}
{% macro raw_table_location(relation) %}
    {%- set existing = adapter.get_relation(relation.database, relation.schema, relation.identifier) -%}
    {%- if existing is not none -%}
        {%- set found = modules.re.search('(?m)^Location: (\\S.*\\S)\\s*$', existing.information or '') -%}
        {{ return(found.group(1) if found else none) }}
    {%- endif -%}
    {%- set schema = run_query('describe schema extended ' ~ tsdedup.quote_identifier(relation.schema)) -%}
    {%- for row in schema.rows if row[0] == 'Location' and row[1] -%}
        {{ return(row[1].rstrip('/') ~ '/' ~ relation.identifier) }}
    {%- endfor -%}
    {{ return(none) }}
{% endmacro %}
