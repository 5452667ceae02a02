{% macro validate_dedup_mode(mode) %}
    {% set allowed = ['fields', 'last_row'] %}
    {% if mode not in allowed %}
        {% do exceptions.raise_compiler_error(
            "tsdedup: dedup mode must be one of " ~ allowed | join(', ') ~ "; got '" ~ mode ~ "'"
        ) %}
    {% endif %}
{% endmacro %}
