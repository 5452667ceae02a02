{#
    The line a measurement model's compiled SQL carries below its write mode
    when the run planned from the logs' heads (log_heads): the materialization
    records the table's state from it (planned_log_heads), without asking the
    logs again.
#}
{% macro log_heads_comment(heads) %}
    {{ return('/* tsdedup log heads: chunk ' ~ heads['chunk_seq'] | int ~ ', retraction ' ~ heads['retraction_seq'] | int ~ ' */') }}
{% endmacro %}
