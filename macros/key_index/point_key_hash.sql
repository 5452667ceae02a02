{#
    key_hash of a raw point row `p`: from its tag map, or, with `layout`
    (point_layout), from the flat columns that hold its tags, which a scan
    reads many times faster. Both give the same hash: the layout names every
    tag any chunk read writes, and a tag a point lacks is NULL there.
#}
{% macro point_key_hash(layout=none) %}
    {%- if layout is none -%}
        {{ return(tsdedup.key_hash(tags_map='p.tags', time_column='p.time_ns')) }}
    {%- endif -%}
    {%- set expressions = {} -%}
    {%- for name, flat_column in layout.get('tag', {}).items() -%}
        {%- do expressions.update({name: 'p.' ~ tsdedup.quote_identifier(flat_column)}) -%}
    {%- endfor -%}
    {{ return(tsdedup.key_hash(tag_expressions=expressions, time_column='p.time_ns')) }}
{% endmacro %}
