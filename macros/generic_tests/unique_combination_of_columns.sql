{# Fails with the combinations of `columns` that occur more than once (NULLs equal). #}
{% test unique_combination_of_columns(model, columns) %}
    {% if columns is string or not columns %}
        {% do exceptions.raise_compiler_error("unique_combination_of_columns: `columns` must be a non-empty list") %}
    {% endif %}
    select
        {{ columns | join(', ') }},
        count(*) as occurrences
    from {{ model }}
    group by {{ columns | join(', ') }}
    having count(*) > 1
{% endtest %}
