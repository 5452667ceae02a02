"""Plain-text tables for the command's summaries."""

from __future__ import annotations

from collections.abc import Sequence


def text_table(rows: Sequence[Sequence[object]], headers: Sequence[str], indent: str = "") -> str:
    """Columns padded to their widest cell, a rule under the headers; None is blank."""
    cells = [["" if value is None else str(value) for value in row] for row in rows]
    widths = [max([len(h), *(len(row[i]) for row in cells)]) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return indent + "  ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in cells)])
