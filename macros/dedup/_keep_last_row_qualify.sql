{# keep_last_row for engines with QUALIFY. Returns SQL starting at column 0. #}
{% macro _keep_last_row_qualify(relation, key_columns, order_by, hidden_keys=[]) %}
    {%- set lines = [
        'select point',
        'from ' ~ relation,
        'qualify row_number() over (',
        '    partition by ' ~ tsdedup._point_keys(key_columns, hidden_keys) | join(', '),
        '    order by ' ~ tsdedup._descending(order_by),
        ') = 1',
    ] -%}
    {{ return(lines | join('\n')) }}
{% endmacro %}
