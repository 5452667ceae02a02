{#
    A map column of tsdedup_read_chunk's rows as the raw log stores it, from
    the text the table function hands maps over as: a plain line's `k=v,k=v`
    section, or JSON of typed values. The formats, the cast and the JSON
    string limit: _landing__macros.yml; why text: decision 0017.
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
