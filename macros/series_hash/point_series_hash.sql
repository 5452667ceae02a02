{#
    series_hash of a raw point row `p` of a measurement whose tags are `tags`:
    from the raw log's flat tag columns when `layout` (point_layout) is given,
    else from its tag map. Both give the hash the measurement table stores.
#}
{% macro point_series_hash(tags, layout=none) %}
    {%- set expressions = {} -%}
    {%- for tag in tags -%}
        {%- if layout is none -%}
            {%- do expressions.update({tag: 'p.tags[' ~ tsdedup.string_literal(tag) ~ ']'}) -%}
        {%- elif tag in layout.get('tag', {}) -%}
            {%- do expressions.update({tag: 'p.' ~ tsdedup.quote_identifier(layout['tag'][tag])}) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(tsdedup.series_hash(expressions)) }}
{% endmacro %}
