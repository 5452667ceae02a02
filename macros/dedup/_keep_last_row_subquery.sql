{# keep_last_row for engines without QUALIFY (Spark 3.5). Returns SQL starting at column 0. #}
{% macro _keep_last_row_subquery(relation, columns, partition_by, order_by) %}
    {%- set lines = [
        'select',
        '    ' ~ columns | join(',\n    '),
        'from (',
        '    select',
        '        ' ~ columns | join(',\n        ') ~ ',',
        '        row_number() over (',
        '            partition by ' ~ partition_by | join(', '),
        '            order by ' ~ tsdedup._descending(order_by),
        '        ) as ingest_rank',
        '    from ' ~ relation,
        ') as ranked',
        'where ingest_rank = 1',
    ] -%}
    {{ return(lines | join('\n')) }}
{% endmacro %}
