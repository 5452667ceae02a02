{#
    The 64-bit hash of a point's series: xxhash64 over its tags in name order,
    each as its name and value, a NULL tag skipped (so a tag column added later
    leaves the hash of the rows before it unchanged, and NULL equals NULL).
    `tags`: tag name -> the SQL of its value, or a list of tag names whose
    values are the columns of those names, after `prefix`. Equal tag sets hash
    equally; two series may share a hash, so it only ever says "may be the
    same series" (decision 0026). No tags: xxhash64 of nothing, its seed (42).

        tsdedup.series_hash({'host': 'p.tags[\'host\']'})
        tsdedup.series_hash(['host'], 'd.point.')   -- over d.point.`host`
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
