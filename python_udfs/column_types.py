"""The column types of a measurement and where each is kept.

The one table of them in Python: the readers, the table function and the
flat columns take their type names and map columns from here. The macro
``column_types`` says the same for SQL, and a unit test compares the two.
"""

from __future__ import annotations

# Column type -> (the raw log's map column that holds its values, its Spark SQL type).
COLUMN_TYPES: dict[str, tuple[str, str]] = {
    "tag": ("tags", "string"),
    "float": ("fields_float", "double"),
    "integer": ("fields_int", "bigint"),
    "unsigned": ("fields_uint", "decimal(20, 0)"),
    "string": ("fields_string", "string"),
    "boolean": ("fields_bool", "boolean"),
}
# The field types, in the order of the raw log's field maps.
FIELD_TYPES: tuple[str, ...] = tuple(name for name in COLUMN_TYPES if name != "tag")
# Column type -> the map column that holds its values.
MAP_OF_TYPE: dict[str, str] = {name: column for name, (column, _) in COLUMN_TYPES.items()}
