"""The adapter's reads and changes of the Spark session without a statement
(`adapter.tsdedup_spark_setting`, `tsdedup_set_spark_setting`,
`tsdedup_columns`), compared with the statements they stand in for: `set`, and
dbt-spark's `describe extended`."""

from __future__ import annotations

import json
import re

import pytest

from tests.integration.conftest import Workspace

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

# Settings of every kind: set when the session started, registered with a
# default, tsdedup's own, an unset Iceberg one, a Hadoop one and none at all.
KEYS = [
    "spark.master",
    "spark.sql.shuffle.partitions",
    "spark.sql.files.maxPartitionBytes",
    "spark.sql.sources.partitionOverwriteMode",
    "spark.tsdedup.mergeShufflePartitions",
    "spark.sql.iceberg.planning.preserve-data-grouping",
    "fs.defaultFS",
    "spark.tsdedup.no-such-setting",
]

# Names a table's columns may have (tests/hostile_names.py), and every kind of column type.
ODD_TABLE = (
    "create table if not exists tsdedup.odd_names ("
    "`a b` int, `back``tick; --` struct<`x y`: string, z: array<double>>,"
    " m map<string, double>, ts timestamp, dec decimal(10, 2), d date, b boolean, l bigint,"
    " `ünïcødé_名前` string)"
    " using iceberg partitioned by (days(ts))"
)

REPORT = """
{% macro session_reads_report(keys, odd_table) %}
    {%- do run_query(odd_table) -%}
    {%- do run_query("create or replace temporary view session_reads_view as"
        ~ " select 1 as one, 'x' as `two words`") -%}
    {%- set report = {'settings': {}, 'columns': {}} -%}
    {%- for key in keys -%}
        {%- set shown = run_query('set `' ~ key ~ '`').columns[1].values()[0] | string | trim -%}
        {%- do report['settings'].update({key: {
            'set': shown,
            'macro': tsdedup.spark_setting(key),
            'adapter': adapter.tsdedup_spark_setting(key)}}) -%}
    {%- endfor -%}
    {%- set relations = [api.Relation.create(identifier='session_reads_view'),
        api.Relation.create(schema=target.schema, identifier='no_such_table')] -%}
    {%- for name in run_query('show tables in ' ~ target.schema).columns[1].values() -%}
        {%- do relations.append(api.Relation.create(schema=target.schema, identifier=name)) -%}
    {%- endfor -%}
    {%- for relation in relations -%}
        {%- set described = [] -%}
        {%- for column in adapter.get_columns_in_relation(relation) -%}
            {%- do described.append([column.name, column.dtype]) -%}
        {%- endfor -%}
        {%- set read = [] -%}
        {%- for column in adapter.tsdedup_columns(relation) -%}
            {%- do read.append([column.name, column.dtype]) -%}
        {%- endfor -%}
        {%- do report['columns'].update(
            {relation.identifier: {'describe': described, 'adapter': read}}) -%}
    {%- endfor -%}
    {%- set before = tsdedup.spark_setting('spark.sql.shuffle.partitions') -%}
    {%- do tsdedup.set_spark_setting('spark.sql.shuffle.partitions', 7) -%}
    {%- set shown = 'set spark.sql.shuffle.partitions' -%}
    {%- do report.update({'changed': run_query(shown).columns[1].values()[0]}) -%}
    {%- do tsdedup.set_spark_setting('spark.sql.shuffle.partitions', before) -%}
    {%- do report.update({'changed back': run_query(shown).columns[1].values()[0]}) -%}
    {{ print('REPORT ' ~ tojson(report)) }}
{% endmacro %}

{% macro set_a_static_setting() %}
    {%- do tsdedup.set_spark_setting('spark.sql.warehouse.dir', '/nowhere') -%}
{% endmacro %}
"""


def test_session_reads_answer_as_the_statements_they_replace(workspace: Workspace) -> None:
    ws = workspace
    ws.add_measurement_model("reads", "reads")
    ws.land("reads.lp", "reads,host=a,odd\\ tag=x value=1.5,n=2i 1000\nreads,host=b value=2 2000\n")
    ws.build()
    (ws.project / "macros" / "session_reads.sql").write_text(REPORT, encoding="utf-8")
    out = (
        ws.tsdedup(
            "run-operation",
            "session_reads_report",
            "--args",
            json.dumps({"keys": KEYS, "odd_table": ODD_TABLE}),
        )
        .check()
        .stdout
    )
    (line,) = re.findall(r"^REPORT (.*)$", out, re.M)
    report = json.loads(line)

    for key, seen in report["settings"].items():
        # The macro answers as `set` does, statement or not.
        assert seen["macro"] == (None if seen["set"] == "<undefined>" else seen["set"]), key
        # The session's own answer, where it has one, is the statement's.
        assert seen["adapter"] is None or seen["adapter"] == seen["set"], key
    settings = report["settings"]
    for key in (
        "spark.master",
        "spark.sql.shuffle.partitions",
        "spark.sql.files.maxPartitionBytes",
        "spark.tsdedup.mergeShufflePartitions",
    ):
        assert settings[key]["adapter"] is not None, key  # read without a statement
    # A Hadoop setting only `set` finds; one nobody defines.
    assert settings["fs.defaultFS"]["adapter"] is None
    assert settings["fs.defaultFS"]["macro"] is not None
    assert settings["spark.tsdedup.no-such-setting"]["macro"] is None

    columns = report["columns"]
    assert {"raw_chunks", "reads", "odd_names", "session_reads_view"} <= set(columns)
    for name, seen in columns.items():
        assert seen["adapter"] == seen["describe"], name
    assert columns["no_such_table"] == {"describe": [], "adapter": []}
    assert columns["odd_names"]["adapter"][:2] == [
        ["a b", "int"],
        ["back`tick; --", "struct<x y:string,z:array<double>>"],
    ]
    assert ["odd tag", "string"] in columns["reads"]["adapter"]

    assert report["changed"] == "7"
    assert report["changed back"] == settings["spark.sql.shuffle.partitions"]["set"]

    # A setting Spark does not let a session change stops with its name.
    failed = ws.tsdedup("run-operation", "set_a_static_setting")
    assert failed.code != 0
    assert "cannot set spark.sql.warehouse.dir = /nowhere" in failed.stdout + failed.stderr
