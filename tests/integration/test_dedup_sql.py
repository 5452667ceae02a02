"""The SQL the dedup macro emits, and what it returns: one window over the key
in the order given, the winner by ingestion order, NULL tags equal."""

from __future__ import annotations

import json
import re

import pytest

from tests.hostile_names import HOSTILE_NAMES
from tests.integration.conftest import Workspace
from tsdedup.sql_quoting import quote_identifier, string_literal

pytestmark = [pytest.mark.spark, pytest.mark.dbt]


def compiled(ws: Workspace, inline: str, *extra: str) -> str:
    result = ws.tsdedup("compile", "--inline", inline, *extra).check()
    return result.stdout.split("Compiled inline node is:", 1)[1]


def squash(sql: str) -> str:
    return re.sub(r"\s+", " ", sql).strip()


def test_the_dedup_is_one_window_over_the_key_in_the_order_given(
    module_scenario_workspace: Workspace,
) -> None:
    out = squash(
        compiled(
            module_scenario_workspace,
            "{{ tsdedup.deduplicate_points('points', ['`a b`', 'time_ns'], ['`f`'],"
            " ['chunk_seq', 'position'], hidden_keys=['day']) }}",
        )
    )
    assert out == (
        "select struct( key_1 as `a b`, key_2 as time_ns, field_1 as `f` ) as point, day"
        " from ( select day, key_1, key_2, row_number() over newest_first as ingest_rank,"
        " first(point.`f`, true) over whole_key as field_1"
        " from ( select chunk_seq, position, day, point, point.`a b` as key_1,"
        " point.time_ns as key_2 from points ) as keyed"
        " window newest_first as (partition by day, key_1, key_2"
        " order by chunk_seq desc, position desc),"
        " whole_key as ( partition by day, key_1, key_2 order by chunk_seq desc, position desc"
        " rows between unbounded preceding and unbounded following ) ) as ranked"
        " where ingest_rank = 1"
    )


def test_the_dedup_orders_by_columns_only(module_scenario_workspace: Workspace) -> None:
    refused = module_scenario_workspace.tsdedup(
        "compile",
        "--inline",
        "{{ tsdedup.deduplicate_points('points', ['time_ns'], [], ['chunk_seq * 2']) }}",
    )
    assert refused.code != 0
    assert (
        "`order_by`, `hidden_keys` and `clustered_by` name columns of the relation beside"
        " `point`; got 'chunk_seq * 2'" in refused.stdout + refused.stderr
    )
    refused = module_scenario_workspace.tsdedup(
        "compile",
        "--inline",
        "{{ tsdedup.deduplicate_points('points', ['time_ns'], [], ['chunk_seq'],"
        " clustered_by=['day) --']) }}",
    )
    assert refused.code != 0
    assert "got 'day) --'" in refused.stdout + refused.stderr


POINTS = """
with points as (
    select
        chunk_seq,
        position,
        day,
        named_struct('t', t, 'time_ns', time_ns, 'f', f, 'g', g) as point
    from values
        (1, 1, 'd1', 'x', 10, 1.0, 'one'),
        (1, 2, 'd1', 'x', 10, cast(null as double), 'two'),
        (2, 1, 'd1', 'x', 10, 3.0, cast(null as string)),
        (1, 3, 'd1', cast(null as string), 10, 4.0, 'four'),
        (2, 2, 'd1', cast(null as string), 10, cast(null as double), 'five'),
        (1, 4, 'd2', cast(null as string), 10, 6.0, 'six'),
        (1, 5, 'd1', 'x', 20, 7.0, 'seven')
        as v(chunk_seq, position, day, t, time_ns, f, g)
)
"""


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        (
            "fields",  # per field, the last non-null value
            {
                ("d1", "x", 10): (3.0, "two"),
                ("d1", None, 10): (4.0, "five"),
                ("d2", None, 10): (6.0, "six"),
                ("d1", "x", 20): (7.0, "seven"),
            },
        ),
        (
            "last_row",  # the whole last row, NULLs included
            {
                ("d1", "x", 10): (3.0, None),
                ("d1", None, 10): (None, "five"),
                ("d2", None, 10): (6.0, "six"),
                ("d1", "x", 20): (7.0, "seven"),
            },
        ),
    ],
)
def test_the_dedup_keeps_the_last_value_per_key_with_null_tags_equal(
    module_scenario_workspace: Workspace, mode: str, expected: dict[tuple, tuple]
) -> None:
    # Ingestion order is (chunk_seq, position); the rows come in another order.
    rows = module_scenario_workspace.query(
        POINTS
        + "select day, point.t, point.time_ns, point.f, point.g from ("
        + "{{ tsdedup.deduplicate_points('points', ['t', 'time_ns'], ['f', 'g'],"
        + f" ['chunk_seq', 'position'], '{mode}', hidden_keys=['day']) }}}}"
        + ")"
    )
    got = {(r["day"], r["t"], r["time_ns"]): (r["f"], r["g"]) for r in rows}
    assert len(rows) == len(got)
    assert got == expected


def test_ingestion_order_orders_like_chunk_then_position_up_to_its_limits(
    module_scenario_workspace: Workspace,
) -> None:
    ws = module_scenario_workspace
    expression = squash(compiled(ws, "{{ tsdedup.ingestion_order('c', 'p') }}"))
    assert expression == "c * 4294967296 + p"
    # the last chunk number the landing macro allows, the last position the reader does
    last_chunk, last_position = 2**31 - 1, 2**32 - 1
    pairs = [
        (2, 1),
        (last_chunk, last_position),
        (1, last_position),
        (last_chunk - 1, last_position),
        (1, 2),
        (last_chunk, 1),
        (1, 1),
    ]
    values = ", ".join(f"(cast({c} as bigint), cast({p} as bigint))" for c, p in pairs)
    (rows,) = ws.sql(f"select c, p, {expression} as o from values {values} as t(c, p) order by o")
    assert [(r["c"], r["p"]) for r in rows] == sorted(pairs)
    orders = [int(str(r["o"])) for r in rows]
    assert orders[0] > 0 and orders == sorted(set(orders))  # no overflow, no ties


def test_a_chunk_number_beyond_the_ingestion_order_is_refused(
    module_scenario_workspace: Workspace,
) -> None:
    ws = module_scenario_workspace
    compiled(ws, "select {{ tsdedup.validate_chunk_seq(2147483647) }} 1")
    refused = ws.tsdedup("compile", "--inline", "{{ tsdedup.validate_chunk_seq(2147483648) }}")
    assert refused.code != 0
    assert (
        "the next chunk would be number 2147483648, beyond the last one the ingestion order"
        " can hold (2147483647)" in refused.stdout + refused.stderr
    )


def test_python_quoting_gives_back_every_hostile_value(
    module_scenario_workspace: Workspace,
) -> None:
    # tsdedup.sql_quoting writes names and values from data into the SQL of
    # the command line's own queries (summary, report, warm-up), as the macros
    # quote_identifier and string_literal do in models.
    values = [*HOSTILE_NAMES, "line\nbreak", "tab\there", "carriage\rreturn", "\\'", "\\"]
    statements = [
        f"select {string_literal(value)} as value, 1 as {quote_identifier(value)}"
        for value in values
    ]
    answers = module_scenario_workspace.sql(*statements)
    assert answers == [[{"value": value, value: 1}] for value in values]


def test_python_and_macro_quoting_write_the_same_sql(
    module_scenario_workspace: Workspace,
) -> None:
    # Two implementations of one rule: the macros quote in models, the Python
    # module in the command line's own queries. They must write the same text.
    values = [*HOSTILE_NAMES, "line\nbreak", "tab\there", "carriage\rreturn", "\\'", "\\", ""]
    inline = (
        "{%- set out = [] -%}"
        "{%- for value in var('quoting_values') -%}"
        "{%- do out.append([tsdedup.string_literal(value), tsdedup.quote_identifier(value)]) -%}"
        "{%- endfor -%}"
        "{{ tojson(out) }}"
    )
    text = compiled(
        module_scenario_workspace, inline, "--vars", json.dumps({"quoting_values": values})
    )
    assert json.loads(text) == [[string_literal(v), quote_identifier(v)] for v in values]


def test_floor_div_rounds_towards_the_past_without_overflow(
    module_scenario_workspace: Workspace,
) -> None:
    ws = module_scenario_workspace
    column = squash(compiled(ws, "{{ tsdedup.floor_div('t.x', 1000) }}"))
    assert column == "(t.x div 1000 - if(t.x % 1000 < 0, 1, 0))"
    expression = squash(compiled(ws, "{{ tsdedup.floor_div('a + b', 7) }}"))
    assert expression == "((a + b) div 7 - if((a + b) % 7 < 0, 1, 0))"
    pairs = [(-(2**63), 0), (2**63 - 1, 0), (-(2**63) + 6, 1), (-1, 0), (-7, 0), (-8, 1)]
    pairs += [(0, 0), (6, 0), (7, 0), (-3, -4), (2**62, 2**62 - 1)]
    values = ", ".join(f"(cast({a} as bigint), cast({b} as bigint))" for a, b in pairs)
    (rows,) = ws.sql(f"select a, b, {expression} as q from values {values} as t(a, b)")
    assert {(r["a"], r["b"]): r["q"] for r in rows} == {(a, b): (a + b) // 7 for a, b in pairs}
    for divisor in ("0", "-5", "1.5", "'1000'"):
        refused = ws.tsdedup("compile", "--inline", f"{{{{ tsdedup.floor_div('x', {divisor}) }}}}")
        assert refused.code != 0, divisor
        assert "tsdedup.floor_div: the divisor must be a positive integer" in (
            refused.stdout + refused.stderr
        ), divisor
