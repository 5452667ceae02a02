"""Line protocol read a whole file at a time, in Arrow arrays.

Most lines of a real feed have one plain shape::

    measurement,tag=value,tag=value field=1.5,field=2i 1700000000000000000

This module reads every line of that shape with Arrow compute kernels over the
whole file, and says which lines it did not read. A line is read here only when
the answer is certain: no escape, quote or control character, single spaces, no
leading or trailing space, every tag and field a ``key=value`` pair, every value
a number, integer, unsigned integer or boolean whose text alone proves it valid
and in range, and names that pass the reader's own checks. Every other line
(blank lines and comments included) goes to the exact parser,
:func:`python_udfs.line_protocol.iter_lines`, which stays the one definition of
the grammar and of every reject reason; ``tests/unit/test_lp_vector.py`` checks
that both readers give the same points for every line this module accepts.

Values are kept as their text (``1.5``, ``2i``) for Spark's write of the raw log,
which turns them into numbers (``raw_chunks``), so a value crosses into the JVM
as the bytes the writer sent. Read with ``typed`` (the table function's own
write, python_udfs/raw_files.py), the tags and fields come as typed maps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from python_udfs.column_types import FIELD_TYPES
from python_udfs.line_protocol import _FLOAT, INT64_MAX, PRECISION_FACTORS

# Field types of the plain shape (every one but string), in the order of their codes.
PLAIN_TYPES = tuple(name for name in FIELD_TYPES if name != "string")

_FLOAT_VALUE = f"^{_FLOAT.pattern}$"
# At most 18 digits (integers) or 19 (unsigned): always in range.
_INTEGER_VALUE = r"^-?[0-9]{1,18}i$"
_UNSIGNED_VALUE = r"^[0-9]{1,19}u$"
_TRUE_VALUES = pa.array(["t", "T", "true", "True", "TRUE"])
_BOOLEAN_VALUES = pa.concat_arrays([_TRUE_VALUES, pa.array(["f", "F", "false", "False", "FALSE"])])
_TIMESTAMP_VALUE = r"^-?[0-9]{1,19}$"


# A point's names: measurement, tag keys, and (field key, type) pairs.
Names = tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]
NameCheck = Callable[[str, tuple[str, ...], tuple[str, ...]], str | None]


@dataclass(frozen=True)
class PlainLines:
    """The lines of one file read here.

    ``line_index`` is each point's 0-based physical line; ``tags`` is the tag
    section as written (``k=v,k=v``, empty for none); ``fields`` holds, per field
    type, the fields of that type as written (``k=2i,k2=3i``), null for a line
    with none; ``time_ns`` is null for a line without a timestamp. Each line's
    names are ``names[name_ids[i]]``: its measurement, tag keys and typed
    field keys."""

    line_index: np.ndarray
    measurement: pa.Array
    tags: pa.Array | None
    fields: dict[str, pa.Array]
    time_ns: pa.Array
    name_ids: np.ndarray
    names: list[Names]
    maps: dict[str, pa.Array] = field(default_factory=dict)

    def take(self, keep: np.ndarray) -> PlainLines:
        """The same lines less those where ``keep`` is false."""
        mask = pa.array(keep)
        return PlainLines(
            self.line_index[keep],
            self.measurement.filter(mask),
            None if self.tags is None else self.tags.filter(mask),
            {name: values.filter(mask) for name, values in self.fields.items()},
            self.time_ns.filter(mask),
            self.name_ids[keep],
            self.names,
            {name: values.filter(mask) for name, values in self.maps.items()},
        )

    def first_use(self) -> dict[tuple[str, str, str], int]:
        """The first position (1-based line) at which each (measurement, name,
        type) appears, with ``tag`` as the type of tags."""
        first_use: dict[tuple[str, str, str], int] = {}
        if not len(self.name_ids):
            return first_use
        distinct, first = np.unique(self.name_ids, return_index=True)
        # In line order: a name shared by several sets is first used by the set
        # that comes first in the file.
        order = np.argsort(first, kind="stable")
        for names_id, at in zip(distinct[order].tolist(), first[order].tolist(), strict=True):
            measurement, tag_keys, typed = self.names[names_id]
            position = int(self.line_index[at]) + 1
            for key, type_ in typed:
                first_use.setdefault((measurement, key, type_), position)
            for key in tag_keys:
                first_use.setdefault((measurement, key, "tag"), position)
        return first_use


@dataclass(frozen=True)
class FileLines:
    """A file split into physical lines (ended by ``\n``; a last line without
    one counts): line ``i`` is ``data[starts[i]:ends[i]]``."""

    data: bytes
    starts: np.ndarray
    ends: np.ndarray

    @property
    def count(self) -> int:
        return len(self.starts)

    @property
    def lines(self) -> pa.Array:
        """The lines as Arrow strings, without their ``\n``."""
        return _spans(self.data, self.starts, self.ends)


def split_lines(content: bytes) -> FileLines:
    """The physical lines of a UTF-8 file."""
    data = np.frombuffer(content, dtype=np.uint8)
    ends = np.flatnonzero(data == _NEWLINE)
    if len(content) and content[-1] != _NEWLINE:
        ends = np.append(ends, len(content))
    starts = np.concatenate(([0], ends[:-1] + 1)) if len(ends) else ends
    return FileLines(content, starts.astype(np.int64), ends.astype(np.int64))


def _spans(data: bytes, begin: np.ndarray, end: np.ndarray) -> pa.Array:
    """The byte ranges ``[begin[i], end[i])`` of ``data`` as Arrow strings; the
    ranges must be in order and not overlap. Offsets alternate begin and end, so
    that each range is an element and each gap the element after it: for
    ``b"ab,cd"`` and the ranges [0, 2) and [3, 5), the offsets 0, 2, 3, 5 make
    the elements "ab", ",", "cd", of which the even ones are kept."""
    if not len(begin):
        return pa.array([], pa.string())
    offsets = np.empty(2 * len(begin), dtype=np.int64)
    offsets[0::2] = begin
    offsets[1::2] = end
    both = pa.LargeStringArray.from_buffers(
        len(offsets) - 1, pa.py_buffer(offsets), pa.py_buffer(data)
    )
    return both.take(pa.array(np.arange(0, len(offsets) - 1, 2))).cast(pa.string())


# Delimiter bytes, and the kind of the delimiter before a line's first one.
_NEWLINE, _SPACE, _COMMA, _EQUALS = 10, 32, 44, 61
_LINE_START = 0


@dataclass(frozen=True)
class _Tokens:
    """Every delimiter of a file (space, comma, equals sign, line end) in order,
    with the token that ends at it: ``kind[k]`` is the delimiter's byte,
    ``prev[k]`` the kind of the delimiter before it on its line (or
    _LINE_START), ``section[k]`` how many spaces come before it on its line,
    ``line[k]`` its line, and the token is ``data[begin[k]:end[k]]``."""

    kind: np.ndarray
    prev: np.ndarray
    section: np.ndarray
    line: np.ndarray
    begin: np.ndarray
    end: np.ndarray


def _tokens(lines: FileLines) -> _Tokens:
    data = np.frombuffer(lines.data, dtype=np.uint8)
    where = np.flatnonzero(
        (data == _SPACE) | (data == _COMMA) | (data == _EQUALS) | (data == _NEWLINE)
    )
    kind = data[where]
    if lines.count and lines.ends[-1] == len(data):  # a last line without its newline
        where = np.append(where, len(data))
        kind = np.append(kind, np.uint8(_NEWLINE))
    ends_line = kind == _NEWLINE
    line = np.cumsum(ends_line) - ends_line
    begin = np.empty(len(where), dtype=np.int64)
    begin[0:1] = 0
    begin[1:] = where[:-1] + 1
    first = np.ones(len(where), dtype=bool)
    first[1:] = ends_line[:-1]
    prev = np.empty(len(where), dtype=np.uint8)
    prev[0:1] = _LINE_START
    prev[1:] = kind[:-1]
    prev[first] = _LINE_START
    spaces = np.cumsum(kind == _SPACE) - (kind == _SPACE)
    section = spaces - spaces[np.flatnonzero(first)][line]
    return _Tokens(kind, prev, section, line, begin, where.astype(np.int64))


def _plain_shape(lines: FileLines, tokens: _Tokens) -> np.ndarray:
    """Per line: whether it has the plain shape (see the module's text)."""
    data = np.frombuffer(lines.data, dtype=np.uint8)
    plain = lines.ends > lines.starts  # not empty
    if lines.count:
        first_byte = data[np.minimum(lines.starts, max(len(data) - 1, 0))]
        plain &= (first_byte != ord("#")) & (first_byte != _SPACE)
    bad = np.flatnonzero(
        ((data < 32) & (data != _NEWLINE))
        | (data == 127)
        | (data == ord("\\"))
        | (data == ord('"'))
    )
    if len(bad):
        plain[np.searchsorted(lines.starts, bad, side="right") - 1] = False
    kind, prev, section = tokens.kind, tokens.prev, tokens.section
    head, body, stamp = section == 0, section == 1, section == 2
    after_value = prev == _EQUALS
    valid = tokens.end > tokens.begin  # no empty token
    valid &= np.select(
        [kind == _COMMA, kind == _EQUALS, kind == _SPACE, kind == _NEWLINE],
        [
            (head & ((prev == _LINE_START) | after_value)) | (body & after_value),
            (head & (prev == _COMMA)) | (body & ((prev == _SPACE) | (prev == _COMMA))),
            (head & ((prev == _LINE_START) | after_value)) | (body & after_value),
            (body & after_value) | (stamp & (prev == _SPACE)),
        ],
        False,
    )
    if not valid.all():
        plain[tokens.line[~valid]] = False
    return plain


def _type_codes(values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Per value: 0 float, 1 integer, 2 unsigned, 3 boolean, -1 not plain; and
    each float's number (0 for the other values)."""
    codes = np.full(len(values), -1, dtype=np.int8)
    numbers = np.zeros(len(values), dtype=np.float64)
    codes[pc.match_substring_regex(values, _FLOAT_VALUE).to_numpy(zero_copy_only=False)] = 0
    others = np.flatnonzero(codes < 0)
    if len(others):
        rest = values.take(pa.array(others))
        for code, matches in (
            (3, pc.is_in(rest, value_set=_BOOLEAN_VALUES)),
            (2, pc.match_substring_regex(rest, _UNSIGNED_VALUE)),
            (1, pc.match_substring_regex(rest, _INTEGER_VALUE)),
        ):
            codes[others[matches.to_numpy(zero_copy_only=False)]] = code
    floats = np.flatnonzero(codes == 0)
    if len(floats):
        numbers[floats] = pc.cast(values.take(pa.array(floats)), pa.float64()).to_numpy(
            zero_copy_only=False
        )
        codes[floats[~np.isfinite(numbers[floats])]] = -1  # the exact parser says why
    return codes, numbers


def _timestamps(stamps: pa.Array, precision: str) -> tuple[np.ndarray, np.ndarray]:
    """Each timestamp in nanoseconds, and whether it is an integer of at most 19
    digits whose magnitude fits in int64 (digit strings of one length compare
    as numbers), also once scaled to nanoseconds."""
    digits = pc.match_substring_regex(stamps, _TIMESTAMP_VALUE)
    magnitude = pc.utf8_ltrim(stamps, characters="-")
    too_big = pc.and_(
        pc.equal(pc.utf8_length(magnitude), 19), pc.greater(magnitude, str(INT64_MAX))
    )
    fits = pc.and_(digits, pc.invert(too_big)).to_numpy(zero_copy_only=False)
    values = pc.cast(pc.if_else(pa.array(fits), stamps, "0"), pa.int64()).to_numpy(
        zero_copy_only=False
    )
    factor = PRECISION_FACTORS[precision]
    fits &= np.abs(values) <= INT64_MAX // factor
    return values * np.where(fits, factor, 0), fits


def _per_line(values: np.ndarray, lines: np.ndarray, count: int) -> pa.Array:
    """``values`` (int64, in line order) as one binary value per line."""
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(lines, minlength=count) * 8, out=offsets[1:])
    buffer = np.ascontiguousarray(values, dtype=np.int64)
    return pa.Array.from_buffers(
        pa.large_binary(), count, [None, pa.py_buffer(offsets), pa.py_buffer(buffer)]
    )


def read_plain_lines(
    lines: FileLines, precision: str, validate_names: NameCheck, *, typed: bool = False
) -> tuple[PlainLines, np.ndarray]:
    """Read the plain lines of a file; also return, per physical line, whether it
    was read here. ``validate_names(measurement, tag_keys, field_keys)`` is the
    reader's check of a point's names (None when they are fine); it is asked
    once per distinct set of names. ``typed``: the tags and fields as typed
    maps rather than text (see PlainLines)."""
    data = lines.data
    tokens = _tokens(lines)
    plain = _plain_shape(lines, tokens)
    keep = plain[tokens.line]
    kind, section = tokens.kind[keep], tokens.section[keep]
    line, begin, end = tokens.line[keep], tokens.begin[keep], tokens.end[keep]
    after_value = tokens.prev[keep] == _EQUALS

    # Per line: the measurement (the token before its first delimiter), the tag
    # section (after the first comma, up to the first space), the field section
    # (to the second space or the line's end) and the timestamp.
    first = np.ones(len(kind), dtype=bool)
    first[1:] = line[1:] != line[:-1]
    index = np.flatnonzero(plain)
    count = len(index)
    # each plain line's place among the plain lines (its row in what follows)
    ordinal = np.cumsum(plain) - 1
    measurement = _spans(data, begin[first], end[first])
    space_one = (kind == _SPACE) & (section == 0)
    field_end = ((kind == _SPACE) | (kind == _NEWLINE)) & (section == 1)
    stamp = (kind == _NEWLINE) & (section == 2)
    if not typed:
        fields_begin = end[space_one] + 1
        tags_begin = np.where(kind[first] == _COMMA, end[first] + 1, end[space_one])
        tags = _spans(data, tags_begin, end[space_one])
        fields = _spans(data, fields_begin, end[field_end])

    # Field values and their types; a line with a value that is not plain is not read.
    is_value = after_value & (section == 1)
    values = _spans(data, begin[is_value], end[is_value])
    codes, numbers = _type_codes(values)
    value_line = ordinal[line[is_value]]
    read = np.ones(count, dtype=bool)
    read[value_line[codes < 0]] = False
    time_ns = np.zeros(count, dtype=np.int64)
    has_time = np.zeros(count, dtype=bool)
    stamp_line = ordinal[line[stamp]]
    if len(stamp_line):
        nanoseconds, fits = _timestamps(_spans(data, begin[stamp], end[stamp]), precision)
        time_ns[stamp_line] = nanoseconds
        has_time[stamp_line] = True
        read[stamp_line[~fits]] = False

    # Names: one check per distinct measurement, tag keys and typed field keys. A
    # line's names are the codes of its measurement and keys, in line order.
    is_key = kind == _EQUALS
    names_at = first | is_key
    name_text = _spans(data, begin[names_at], end[names_at])
    name_tokens = name_text.dictionary_encode()
    name_codes = name_tokens.indices.to_numpy(zero_copy_only=False).astype(np.int64) * 8
    key_type = np.full(int(names_at.sum()), 7, dtype=np.int64)  # 7: the measurement
    key_type[(is_key & (section == 0))[names_at]] = 4  # 4: a tag
    # (a value that is not plain counts as a float here; its line is not read)
    key_type[(is_key & (section == 1))[names_at]] = np.maximum(codes, 0)
    name_line = ordinal[line[names_at]]
    signature = _per_line(name_codes + key_type, name_line, count).dictionary_encode()
    words = name_tokens.dictionary.to_pylist()
    parsed: list[Names] = []
    names_ok = np.zeros(len(signature.dictionary), dtype=bool)
    for number, packed in enumerate(signature.dictionary.to_pylist()):
        codes_here = np.frombuffer(packed, dtype=np.int64)
        name = words[codes_here[0] // 8]
        tag_keys = tuple(words[c // 8] for c in codes_here[1:] if c % 8 == 4)
        typed_keys = tuple((words[c // 8], PLAIN_TYPES[c % 8]) for c in codes_here[1:] if c % 8 < 4)
        field_keys = tuple(key for key, _ in typed_keys)
        names_ok[number] = (
            len(set(tag_keys)) == len(tag_keys)
            and len(set(field_keys)) == len(field_keys)
            and validate_names(name, tag_keys, field_keys) is None
        )
        parsed.append((name, tag_keys, typed_keys))
    name_ids = signature.indices.to_numpy(zero_copy_only=False)
    read &= names_ok[name_ids]

    mask = pa.array(read)
    kept = int(read.sum())
    by_type: dict[str, pa.Array] = {}
    maps: dict[str, pa.Array] = {}
    value_read = read[value_line]
    if typed:
        token_line = ordinal[line]
        # each token's point among those read (-1: its line is not read)
        row = np.where(read[token_line], np.cumsum(read)[token_line] - 1, -1)
        tag_key = is_key & (section == 0) & (row >= 0)
        tag_value = after_value & (section == 0) & (row >= 0)
        maps["tag"] = _maps(
            name_text.filter(pa.array(tag_key[names_at])),
            _spans(data, begin[tag_value], end[tag_value]),
            row[tag_key],
            kept,
            empty_is_null=False,
        )
        field_key = is_key & (section == 1)
        keys, rows = name_text.filter(pa.array(field_key[names_at])), row[field_key]
        for code, type_ in enumerate(PLAIN_TYPES):
            mine = (codes == code) & value_read
            if mine.any():
                typed_values = (
                    pa.array(numbers[mine])
                    if type_ == "float"
                    else _typed_values(values.filter(pa.array(mine)), type_)
                )
                maps[type_] = _maps(
                    keys.filter(pa.array(mine)), typed_values, rows[mine], kept, empty_is_null=True
                )
    # The fields of each type as written: the whole section when all are floats.
    elif (codes[value_read] == 0).all():
        by_type["float"] = fields.filter(mask)
    else:
        is_field_key = is_key & (section == 1)
        items = _spans(data, begin[is_field_key][value_read], end[is_value][value_read])
        item_codes = codes[value_read]
        item_line = (np.cumsum(read) - 1)[value_line[value_read]]
        for code, type_ in enumerate(PLAIN_TYPES):
            mine = item_codes == code
            if not mine.any():
                continue
            counts = np.bincount(item_line[mine], minlength=kept)
            offsets = np.zeros(kept + 1, dtype=np.int64)
            np.cumsum(counts, out=offsets[1:])
            joined = pc.binary_join(
                pa.ListArray.from_arrays(pa.array(offsets), items.filter(pa.array(mine))), ","
            )
            by_type[type_] = pc.if_else(pa.array(counts > 0), joined, pa.nulls(kept, pa.string()))
    read_here = np.zeros(lines.count, dtype=bool)
    read_here[index[read]] = True
    return (
        PlainLines(
            index[read],
            measurement.filter(mask),
            None if typed else tags.filter(mask),
            by_type,
            pa.array(time_ns[read], mask=~has_time[read]),
            name_ids[read],
            parsed,
            maps,
        ),
        read_here,
    )


def _typed_values(texts: pa.Array, type_: str) -> pa.Array:
    """Plain integers, unsigned integers or booleans (see _type_codes) as
    Arrow values."""
    if type_ == "boolean":
        return pc.is_in(texts, value_set=_TRUE_VALUES)
    digits = pc.utf8_slice_codeunits(texts, 0, -1)  # the i / u suffix
    return pc.cast(digits, pa.int64() if type_ == "integer" else pa.uint64())


def _maps(
    keys: pa.Array, values: pa.Array, rows: np.ndarray, count: int, *, empty_is_null: bool
) -> pa.Array:
    """``count`` maps from items in row order: item ``i`` goes to map ``rows[i]``.
    A map without items is empty, or null with ``empty_is_null``."""
    sizes = np.bincount(rows, minlength=count)
    offsets = np.zeros(count + 1, dtype=np.int32)
    np.cumsum(sizes, out=offsets[1:])
    mask = pa.array(sizes == 0) if empty_is_null else None
    return pa.MapArray.from_arrays(pa.array(offsets), keys, values, mask=mask)
