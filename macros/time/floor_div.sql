{#
    The SQL expression of `dividend` divided by the positive integer `divisor`,
    rounded towards the past (floor division) without overflow: Spark's `div`
    rounds towards zero, so a negative dividend with a remainder takes one
    off. `(x - pmod(x, d)) div d` gives the same result but overflows for the
    first values of the 64-bit range (times before 1677-09-22).
#}
{% macro floor_div(dividend, divisor) %}
    {%- if divisor is not number or divisor is not integer or divisor <= 0 -%}
        {% do exceptions.raise_compiler_error("tsdedup.floor_div: the divisor must be a positive integer, not " ~ divisor) %}
    {%- endif -%}
    {#- A column reference goes in as it is, any other expression in parentheses. -#}
    {%- set x = dividend if modules.re.fullmatch('[A-Za-z_][A-Za-z0-9_.`]*', dividend) else '(' ~ dividend ~ ')' -%}
    {{- return('(' ~ x ~ ' div ' ~ divisor ~ ' - if(' ~ x ~ ' % ' ~ divisor ~ ' < 0, 1, 0))') -}}
{% endmacro %}
