{#
    A map column of tsdedup_read_chunk's rows as the raw log stores it. The table
    function hands maps over as text (python_udfs/chunk_table.py says why): a
    plain line's own `k=v,k=v` section with the values as written (`2i`, `64u`,
    `t`), or, for every other point, a JSON object of typed values. Integer and
    unsigned values lose their `i` / `u` suffix before the cast. An empty
    section (a plain line without tags) is an empty map. Jackson's limit of 20
    million characters per JSON string is lifted: a longer string field would
    otherwise make the whole map NULL.
#}
{% macro chunk_map(column, value_type, as_json='r.maps_as_json') %}
    {%- set types = {
        'string': none,
        'double': 'v',
        'bigint': 'substring(v, 1, length(v) - 1)',
        'decimal(20, 0)': 'substring(v, 1, length(v) - 1)',
        'boolean': 'v',
    } -%}
    {%- if value_type not in types -%}
        {% do exceptions.raise_compiler_error("tsdedup.chunk_map: no map of " ~ value_type ~ " values; expected one of " ~ types.keys() | join(', ')) %}
    {%- endif -%}
    {%- set pairs = 'str_to_map(' ~ column ~ ", ',', '=')" -%}
    {%- set value_text = types[value_type] -%}
    case
            when {{ as_json }} then from_json({{ column }}, 'map<string, {{ value_type }}>', map('maxStringLen', '2147483647'))
            when {{ column }} = '' then cast(map() as map<string, {{ value_type }}>)
            {%- if value_text is none %}
            else {{ pairs }}
            {%- else %}
            else transform_values({{ pairs }}, (k, v) -> cast({{ value_text }} as {{ value_type }}))
            {%- endif %}
        end
{%- endmacro %}
