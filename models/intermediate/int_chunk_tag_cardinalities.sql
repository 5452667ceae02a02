{#
    One row per chunk and time partition (measurement, day of `time`) with
    accepted points: how many points, their time range, and how many distinct
    values each tag has there. The first chunk of a partition orders the
    partition's sort key by these counts (sort_key_catalog, which runs the
    same select for its new chunks: chunk_tag_cardinalities).

    The points are read once: each point becomes one row for itself (tag_name
    NULL) and one row per tag it carries (none when its tags are NULL), and one
    aggregation counts both. The tag rows are the map's entries as they are,
    without a lambda (decision 0023).
#}
{{ tsdedup.chunk_tag_cardinalities() }}
