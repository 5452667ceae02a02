{#
    The column types of a measurement, `tag` first, each with the raw log's
    map column that holds its values and its Spark SQL type: the one list the
    macros read (python_udfs/column_types.py says the same; a test compares).
#}
{% macro column_types() %}
    {{ return({
        'tag': {'map': 'tags', 'sql': 'string'},
        'float': {'map': 'fields_float', 'sql': 'double'},
        'integer': {'map': 'fields_int', 'sql': 'bigint'},
        'unsigned': {'map': 'fields_uint', 'sql': 'decimal(20, 0)'},
        'string': {'map': 'fields_string', 'sql': 'string'},
        'boolean': {'map': 'fields_bool', 'sql': 'boolean'},
    }) }}
{% endmacro %}
