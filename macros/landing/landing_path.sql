{#
    The landing folder (TSDEDUP_LANDING, set by the `tsdedup` command to an
    absolute path). Raises a clear error when it is not set.
#}
{% macro landing_path() %}
    {%- set path = var('tsdedup_landing', '') -%}
    {%- if not path -%}
        {% do exceptions.raise_compiler_error(
            "No landing folder: set TSDEDUP_LANDING (the `tsdedup` command sets it to ./landing by default)"
        ) %}
    {%- endif -%}
    {{ return(path | string) }}
{% endmacro %}
