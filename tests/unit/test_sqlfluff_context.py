"""`make lint` renders SQL with sqlfluff's jinja templater and the dbt context of
lint/sqlfluff_dbt_context: the project's macros, as dbt runs them on Spark."""

# The `render` fixture (tests/unit/conftest.py) renders a text as `make lint` does.


def test_adapter_dispatch_takes_the_spark_implementation(render):
    # spark__string_literal escapes a quote with a backslash; default__ doubles it.
    variants, errors = render("""select {{ tsdedup.string_literal("it's") }} as a\n""")
    assert errors == []
    assert variants == ["select 'it\\'s' as a\n"]


def test_private_macros_and_project_vars(render):
    # deduplicate_points calls tsdedup._descending and tsdedup.validate_dedup_mode
    # (a name Jinja does not export), and the measurement's default winner rule
    # comes from dbt_project.yml's vars.
    variants, errors = render(
        "{{ tsdedup.deduplicate_points('points', ['k'], ['f'], ['chunk_seq', 'position'],"
        " var('tsdedup_dedup_mode')) }}\n"
    )
    assert errors == []
    assert len(variants) == 1
    assert "order by chunk_seq desc, position desc" in variants[0]
    assert "first(point.f, true) over whole_key as field_1" in variants[0]
    assert variants[0].rstrip().endswith("where ingest_rank = 1")


def test_an_unknown_macro_is_a_templating_error(render):
    variants, errors = render("select {{ tsdedup.no_such_macro() }} as a\n")
    assert variants == []
    assert len(errors) == 1
    assert "no macro named 'no_such_macro'" in errors[0]


def test_compiler_errors_of_macros_are_templating_errors(render):
    _variants, errors = render("{{ tsdedup.measurement('') }}\n")
    assert len(errors) == 1
    assert "pass the measurement name as a non-empty string" in errors[0]
