{#
    A seed's rows as literals in the statement: dbt-spark's session method
    formats each value into the SQL as quoted text, so an empty cell became the
    text 'None' in a string column and a quote broke the statement. Here an
    empty cell is NULL and text is escaped as Spark reads it.
#}
{% macro tsdedup_spark__load_csv_rows(model, agate_table) %}
    {%- set column_override = model['config'].get('column_types', {}) -%}
    {%- set statements = [] -%}
    {%- for chunk in agate_table.rows | batch(get_batch_size()) -%}
        {%- set rows = [] -%}
        {%- for row in chunk -%}
            {%- set values = [] -%}
            {%- for value in row -%}
                {%- set column = agate_table.column_names[loop.index0] -%}
                {%- set type = column_override.get(column, adapter.convert_type(agate_table, loop.index0)) -%}
                {%- if value is none -%}
                    {%- set literal = 'null' -%}
                {%- elif value is boolean -%}
                    {%- set literal = 'true' if value else 'false' -%}
                {%- elif value is number -%}
                    {%- set literal = value | string -%}
                {%- else -%}
                    {%- set literal = "'" ~ (value | string | replace('\\', '\\\\') | replace("'", "\\'")) ~ "'" -%}
                {%- endif -%}
                {%- do values.append('cast(' ~ literal ~ ' as ' ~ type ~ ')') -%}
            {%- endfor -%}
            {%- do rows.append('(' ~ values | join(', ') ~ ')') -%}
        {%- endfor -%}
        {%- set sql = 'insert into ' ~ this.render() ~ ' values\n' ~ rows | join(',\n') -%}
        {%- do adapter.add_query(sql, abridge_sql_log=True) -%}
        {%- do statements.append(sql) -%}
    {%- endfor -%}
    {{ return(statements[0] if statements else '') }}
{% endmacro %}
