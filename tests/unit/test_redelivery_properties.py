"""Re-delivery semantics, as properties of the reference (tests/reference.py)
over random interleavings of chunks and re-deliveries.

The end-to-end tests compare the pipeline with the reference on such
interleavings (test_incremental: re-deliveries under new names and a file
twice at once across incremental runs; test_crash_and_readers, test_sample);
these properties say what the reference, and so the pipeline, must do with
them: the same file again under a new name changes nothing unless later chunks
overwrote its points, and then its values win again; a file delivered twice at
once counts once.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.integration.test_incremental import random_chunk
from tests.reference import expected_from_files

Files = list[tuple[str, bytes]]


def tables(files: Files, mode: str = "fields") -> dict[object, dict[str, object]]:
    return expected_from_files(files, mode=mode).tables.get("inc", {})


@st.composite
def histories(draw: st.DrawFn) -> Files:
    """Random chunks, and a random interleaving of re-deliveries among them
    (indexes of earlier files delivered again, each under a new name)."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    files: Files = []
    for step in range(draw(st.integers(1, 6))):
        if files and draw(st.booleans()):
            again = draw(st.integers(0, len(files) - 1))
            files.append((f"{step:02d}_again.lp", files[again][1]))
        else:
            days = draw(st.lists(st.integers(0, 2), min_size=1, max_size=2))
            files.append((f"{step:02d}.lp", random_chunk(rng, days, draw(st.booleans())).encode()))
    return files


@settings(max_examples=80, deadline=None)
@given(histories(), st.sampled_from(["fields", "last_row"]))
def test_the_last_file_again_under_a_new_name_changes_nothing(files: Files, mode: str) -> None:
    again = [*files, ("zz_again.lp", files[-1][1])]
    assert tables(again, mode) == tables(files, mode)


@settings(max_examples=80, deadline=None)
@given(histories(), st.integers(0, 100), st.sampled_from(["fields", "last_row"]))
def test_a_file_delivered_twice_at_once_counts_once(files: Files, where: int, mode: str) -> None:
    index = where % len(files)
    twice = [*files[: index + 1], (files[index][0] + ".copy.lp", files[index][1])]
    assert tables([*twice, *files[index + 1 :]], mode) == tables(files, mode)


@settings(max_examples=80, deadline=None)
@given(histories(), st.integers(0, 100))
def test_a_redelivered_file_wins_again_for_the_fields_it_writes(files: Files, which: int) -> None:
    old_name, content = files[which % len(files)]
    before = tables(files)
    after = tables([*files, ("zz_" + old_name, content)])
    alone = tables([("only.lp", content)])
    # Its keys now hold its values for every field it writes (within the file,
    # its own last value per field); every other field and key is unchanged.
    assert set(after) == set(before)
    for key, row in after.items():
        expected = dict(before[key])
        expected.update(alone.get(key, {}))
        assert row == expected, key
