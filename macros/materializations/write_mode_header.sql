{#
    The first line of the running measurement model's compiled SQL, which names
    its write mode (`/* tsdedup write mode: append */`, see tsdedup.measurement).
#}
{% macro write_mode_header() %}
    {{ return((model.compiled_code or '').lstrip().split('\n', 1)[0]) }}
{% endmacro %}
