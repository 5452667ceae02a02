{# keep_last_row for engines with QUALIFY. Returns SQL starting at column 0. #}
{% macro _keep_last_row_qualify(relation, columns, partition_by, order_by) %}
    {%- set lines = [
        'select',
        '    ' ~ columns | join(',\n    '),
        'from ' ~ relation,
        'qualify row_number() over (',
        '    partition by ' ~ partition_by | join(', '),
        '    order by ' ~ tsdedup._descending(order_by),
        ') = 1',
    ] -%}
    {{ return(lines | join('\n')) }}
{% endmacro %}
