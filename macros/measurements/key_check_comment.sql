{#
    The line an incremental measurement model's compiled SQL carries when its
    plan asked the stored keys: whether a new point's key was found. The
    materialization records it as the table's `keys_shared` (decision 0038).
#}
{% macro key_check_comment(found) %}
    {{- return('/* tsdedup key check: ' ~ ('stored keys found' if found else 'no stored key') ~ ' */') -}}
{% endmacro %}
