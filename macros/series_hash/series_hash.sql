{#
    The SQL expression of a point's series hash: xxhash64 over its tags in
    name order, each as its name and value, a NULL tag skipped. Two series may
    share a hash, so it only ever says "may be the same series". Arguments
    and examples: _series_hash__macros.yml; decision 0026.
#}
{% macro series_hash(tags, prefix='') %}
    {%- set tag_expressions = tags if tags is mapping else {} -%}
    {%- if tags is not mapping -%}
        {%- for tag in tags -%}
            {%- do tag_expressions.update({tag: prefix ~ tsdedup.quote_identifier(tag)}) -%}
        {%- endfor -%}
    {%- endif -%}
    {%- set items = [] -%}
    {%- for tag in tag_expressions.keys() | sort(case_sensitive=true) -%}
        {%- set value = tag_expressions[tag] -%}
        {%- do items.append('if(' ~ value ~ ' is null, null, ' ~ tsdedup.string_literal(tag) ~ '), ' ~ value) -%}
    {%- endfor -%}
    {{ return('xxhash64(' ~ (items | join(', ') if items else 'null') ~ ')') }}
{% endmacro %}
