{# The last retraction of the register (0 when none): what a table built now has applied. #}
{% macro last_retraction_seq() %}
    {%- if not execute -%}
        {{ return(0) }}
    {%- endif -%}
    {%- set sql = 'select coalesce(max(retraction_seq), 0) from ' ~ tsdedup.retracted_chunks_relation() -%}
    {{ return(run_query(sql).columns[0].values()[0] | int) }}
{% endmacro %}
