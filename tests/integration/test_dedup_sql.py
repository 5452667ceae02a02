"""The SQL the dedup macros emit: QUALIFY where the engine has it, the equivalent
ranked subquery on Spark 3.5 (which rejects QUALIFY). The subquery form is run
for real by the dbt unit tests of the measurement models."""

from __future__ import annotations

import json
import re

import pytest

from python_udfs.sql_quoting import quote_identifier, string_literal
from tests.hostile_names import HOSTILE_NAMES
from tests.integration.conftest import Workspace

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

ARGS = "'points', ['`a b`', 'time_ns'], ['chunk_seq', 'position']"


def compiled(ws: Workspace, inline: str, *extra: str) -> str:
    result = ws.tsdedup("compile", "--inline", inline, *extra).check()
    return result.stdout.split("Compiled inline node is:", 1)[1]


def squash(sql: str) -> str:
    return re.sub(r"\s+", " ", sql).strip()


def test_spark_gets_the_subquery_and_other_engines_get_qualify(
    module_scenario_workspace: Workspace,
) -> None:
    out = compiled(
        module_scenario_workspace,
        f"{{{{ tsdedup.keep_last_row({ARGS}) }}}}\n-- other engines --\n"
        f"{{{{ tsdedup.default__keep_last_row({ARGS}) }}}}",
    )
    spark_sql, default_sql = (squash(part) for part in out.split("-- other engines --"))
    assert "qualify" not in spark_sql.lower()
    assert spark_sql == (
        "select point from ( select point, row_number() over ( partition by point.`a b`,"
        " point.time_ns order by chunk_seq desc, position desc ) as ingest_rank from points )"
        " as ranked where ingest_rank = 1"
    )
    assert default_sql == (
        "select point from points qualify row_number() over "
        "( partition by point.`a b`, point.time_ns order by chunk_seq desc, position desc ) = 1"
    )


def test_spark_uses_qualify_when_the_project_says_the_engine_has_it(
    module_scenario_workspace: Workspace,
) -> None:
    out = squash(
        compiled(
            module_scenario_workspace,
            f"{{{{ tsdedup.keep_last_row({ARGS}) }}}}",
            "--vars",
            "{tsdedup_supports_qualify: true}",
        )
    )
    assert "qualify row_number() over" in out
    assert "ingest_rank" not in out


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
    # python_udfs.sql_quoting writes names and values from data into the SQL of
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
