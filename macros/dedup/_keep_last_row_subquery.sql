{# keep_last_row for engines without QUALIFY (Spark 3.5). Returns SQL starting at column 0. #}
{% macro _keep_last_row_subquery(relation, key_columns, order_by, hidden_keys=[]) %}
    {%- set lines = [
        'select point',
        'from (',
        '    select',
        '        point,',
        '        row_number() over (',
        '            partition by ' ~ tsdedup._point_keys(key_columns, hidden_keys) | join(', '),
        '            order by ' ~ tsdedup._descending(order_by),
        '        ) as ingest_rank',
        '    from ' ~ relation,
        ') as ranked',
        'where ingest_rank = 1',
    ] -%}
    {{ return(lines | join('\n')) }}
{% endmacro %}
