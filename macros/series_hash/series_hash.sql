{#
    The 64-bit hash of a point's series: xxhash64 over its tags in name order,
    each as its name and value, a NULL tag skipped (so a tag column added later
    leaves the hash of the rows before it unchanged, and NULL equals NULL).
    `tag_expressions`: tag name -> the SQL of its value. Equal tag sets hash
    equally; two series may share a hash, so it only ever says "may be the
    same series" (decision 0026). No tags: xxhash64 of nothing, its seed (42).

        tsdedup.series_hash({'host': 'd.point.`host`'})
#}
{% macro series_hash(tag_expressions) %}
    {%- set items = [] -%}
    {%- for tag in tag_expressions.keys() | sort(case_sensitive=true) -%}
        {%- set value = tag_expressions[tag] -%}
        {%- do items.append('if(' ~ value ~ ' is null, null, ' ~ tsdedup.string_literal(tag) ~ '), ' ~ value) -%}
    {%- endfor -%}
    {{ return('xxhash64(' ~ (items | join(', ') if items else 'null') ~ ')') }}
{% endmacro %}
