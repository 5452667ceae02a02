{#
    The logs' heads the running measurement model planned with, from the
    second line of its compiled SQL (log_heads_comment): {'chunk_seq': ...,
    'retraction_seq': ...}, or none when it has no such line (a rebuild plans
    without them).
#}
{% macro planned_log_heads() %}
    {%- set lines = (model.compiled_code or '').lstrip().split('\n', 2) -%}
    {%- set found = modules.re.match('/\\* tsdedup log heads: chunk ([0-9]+), retraction ([0-9]+) \\*/$', lines[1] if lines | length > 1 else '') -%}
    {%- if not found -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return({'chunk_seq': found.group(1) | int, 'retraction_seq': found.group(2) | int}) }}
{% endmacro %}
