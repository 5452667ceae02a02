{#
    An upper bound of the characters a column takes in an Iceberg table's
    name mapping (`schema.name-mapping.default`, one JSON entry per field):
    about 48 plus its name, and the key and value entries of a map, struct
    or array type. add_raw_point_columns keeps the sum under the metastore's
    limit.
#}
{% macro name_mapping_size(name, data_type) %}
    {%- set nested = (data_type | lower).startswith(('map', 'struct', 'array')) -%}
    {{ return(48 + (name | length) + (160 if nested else 0)) }}
{% endmacro %}
