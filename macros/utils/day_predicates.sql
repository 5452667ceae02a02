{#
    A predicate true for the rows of the given days (ISO dates): one range per
    day, joined with `or`. `column` is a timestamp, or with `nanoseconds` a
    bigint of nanoseconds since the epoch (UTC). Ranges on the column itself,
    so Iceberg prunes partitions and files by them. `separator` joins them
    (' or ', or a line break and indent before `or` for one range a line).
#}
{% macro day_predicates(column, days, nanoseconds=false, separator=' or ') %}
    {%- if not days -%}
        {{ return('false') }}
    {%- endif -%}
    {%- set epoch = modules.datetime.date(1970, 1, 1) -%}
    {%- set ranges = [] -%}
    {%- for day in days -%}
        {%- set start = modules.datetime.date.fromisoformat(day) -%}
        {%- set end = start + modules.datetime.timedelta(days=1) -%}
        {%- if nanoseconds -%}
            {%- set low = (start - epoch).days * 86400000000000 -%}
            {%- set high = (end - epoch).days * 86400000000000 -%}
        {%- else -%}
            {%- set low = "timestamp'" ~ start.isoformat() ~ " 00:00:00'" -%}
            {%- set high = "timestamp'" ~ end.isoformat() ~ " 00:00:00'" -%}
        {%- endif -%}
        {%- do ranges.append('(' ~ column ~ ' >= ' ~ low ~ ' and ' ~ column ~ ' < ' ~ high ~ ')') -%}
    {%- endfor -%}
    {{ return(ranges | join(separator)) }}
{% endmacro %}
