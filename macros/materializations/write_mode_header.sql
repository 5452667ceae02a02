{#
    The first line of the running model's compiled SQL, which names its write
    mode (`/* tsdedup write mode: append */`, see tsdedup.measurement;
    `/* tsdedup write mode: none */` when nothing new has come, decision 0018).
#}
{% macro write_mode_header() %}
    {{ return((model.compiled_code or '').lstrip().split('\n', 1)[0]) }}
{% endmacro %}
