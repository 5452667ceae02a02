{#
    For a model's pre-hook: `alter table ... set tblproperties` with the model's
    configured `tblproperties` that its existing table lacks (a table created
    before they were configured), read from dbt's relation cache (the table's
    `describe extended` text, no statement). Empty, so no statement runs, when
    the table has them all or does not exist yet.
#}
{% macro missing_table_properties() %}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- set existing = adapter.get_relation(this.database, this.schema, this.identifier) -%}
    {%- if existing is none or not existing.information -%}
        {{ return('') }}
    {%- endif -%}
    {%- set missing = [] -%}
    {%- for key, value in (config.get('tblproperties') or {}).items() -%}
        {%- if (key ~ '=' ~ value) not in existing.information -%}
            {%- do missing.append(tsdedup.string_literal(key) ~ ' = ' ~ tsdedup.string_literal(value)) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if not missing -%}
        {{ return('') }}
    {%- endif -%}
    {{ return('alter table ' ~ this ~ ' set tblproperties (' ~ missing | join(', ') ~ ')') }}
{% endmacro %}
