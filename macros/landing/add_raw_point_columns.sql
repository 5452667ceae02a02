{#
    Before add_files commits a run's data files (write mode `files`): the
    columns the raw log lacks and the files have, added in one `alter table`
    (metadata only). `point_columns` is what each written file names
    (`tag__host string;float__usage_user double`, decision 0025). A run
    that dies after the alter leaves empty columns, which the next run finds
    present.
#}
{% macro add_raw_point_columns(relation, point_columns) %}
    {%- set stored = [] -%}
    {%- for column in adapter.get_columns_in_relation(relation) -%}
        {%- do stored.append(column.name | lower) -%}
    {%- endfor -%}
    {%- set missing = {} -%}
    {%- for listed in point_columns if listed -%}
        {%- for pair in listed.split(';') -%}
            {%- set name, data_type = pair.split(' ', 1) -%}
            {%- if name | lower not in stored -%}
                {%- do missing.update({name: data_type}) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- if missing -%}
        {%- call statement('add_raw_point_columns') -%}
            alter table {{ relation }} add columns (
                {%- for name, data_type in missing | dictsort %}
                {{ tsdedup.quote_identifier(name) }} {{ data_type }}{{ ',' if not loop.last }}
                {%- endfor %}
            )
        {%- endcall -%}
    {%- endif -%}
{% endmacro %}
