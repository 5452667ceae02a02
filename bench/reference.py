"""The reference semantics, computed with DuckDB, and a difference counter.

Reference: one row per key (all tags + ``time_ns``; a NULL tag equals a NULL
tag), and for every field the last non-null value in ingestion order (chunk
sequence, then position in the chunk). ``GROUP BY`` puts NULL tags in one
group, which is exactly the NULL = NULL rule.

Differences: a contender's output is joined to the reference on the key
(null-safe); a key counts as differing when any field's kept value is not the
reference's (NULL vs value included). Keys missing from the output, keys the
reference does not have, and keys the output holds more than once are counted
apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import duckdb

from bench.schema import FIELDS, TAGS


def reference_sql(raw: str, tags: Sequence[str] = TAGS, fields: Sequence[str] = FIELDS) -> str:
    """A query of the reference rows from ``raw`` (a relation with ``chunk_seq``,
    ``position``, the tags, the fields and ``time_ns``)."""
    order = "(chunk_seq::BIGINT << 32) | position::BIGINT"
    keys = ", ".join((*tags, "time_ns"))
    values = ",\n    ".join(
        f"arg_max({f}, {order}) filter (where {f} is not null) as {f}" for f in fields
    )
    return f"select {keys},\n    {values}\nfrom {raw}\ngroup by {keys}"


@dataclass(frozen=True)
class Differences:
    """How a contender's output differs from the reference."""

    keys_compared: int
    keys_differing: int
    missing_keys: int
    extra_keys: int
    duplicate_rows: int
    fields_differing: dict[str, int]

    @property
    def total(self) -> int:
        """Keys whose kept values are not the reference's, missing or extra keys,
        and surplus rows."""
        return self.keys_differing + self.missing_keys + self.extra_keys + self.duplicate_rows

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "total": self.total}


def count_differences(
    con: duckdb.DuckDBPyConnection,
    reference: str,
    output: str,
    tags: Sequence[str] = TAGS,
    fields: Sequence[str] = FIELDS,
) -> Differences:
    """Compare ``output`` with ``reference`` (relations with the tags, the fields
    and ``time_ns``)."""
    on = " and ".join(
        [*(f"r.{t} is not distinct from o.{t}" for t in tags), "r.time_ns = o.time_ns"]
    )
    both = "r.present and o.present"
    per_field = [
        f"count(*) filter (where {both} and r.{f} is distinct from o.{f}) as d_{f}" for f in fields
    ]
    any_field = " or ".join(f"r.{f} is distinct from o.{f}" for f in fields)
    keys = ", ".join((*tags, "time_ns"))
    columns = ", ".join((*tags, *fields, "time_ns"))
    row = con.execute(
        f"""
        with
            r as (select {columns}, true as present from ({reference})),
            o_all as (select {columns} from ({output})),
            o as (select distinct on ({keys}) *, true as present from o_all)
        select
            count(*) filter (where {both}) as compared,
            count(*) filter (where {both} and ({any_field})) as differing,
            count(*) filter (where o.present is null) as missing,
            count(*) filter (where r.present is null) as extra,
            (select count(*) from o_all) - (select count(*) from o) as duplicates,
            {", ".join(per_field)}
        from r full outer join o on {on}
        """
    ).fetchall()[0]
    values = [int(v) for v in row]
    return Differences(
        keys_compared=values[0],
        keys_differing=values[1],
        missing_keys=values[2],
        extra_keys=values[3],
        duplicate_rows=values[4],
        fields_differing=dict(zip(fields, values[5:], strict=True)),
    )
