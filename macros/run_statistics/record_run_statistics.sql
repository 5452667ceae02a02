{#
    on-run-end: one row per measurement table and day partition the run
    changed, appended to run_statistics (the run's log line, as a table),
    from metadata only, no table scanned. Its sources and what it returns:
    _run_statistics__macros.yml; docs/operations.md, "Run statistics".
#}
{% macro record_run_statistics(results) %}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- set selects = [] -%}
    {%- for result in results
        if result.node.resource_type == 'model'
        and result.status == 'success'
        and result.node.config.materialized == 'measurement' -%}
        {%- set relation = adapter.get_relation(
            database=result.node.database,
            schema=result.node.schema,
            identifier=result.node.alias,
        ) -%}
        {%- set state = tsdedup.read_measurement_state(relation) -%}
        {%- if state['measurement'] is not none -%}
            {%- set select = tsdedup.run_statistics_rows(relation, result, state) -%}
            {%- if select -%}
                {%- do selects.append(select) -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if not selects -%}
        {{ return('') }}
    {%- endif -%}
    {{ return('insert into ' ~ tsdedup.run_statistics_relation() ~ '\n' ~ selects | join('\nunion all\n')) }}
{% endmacro %}
