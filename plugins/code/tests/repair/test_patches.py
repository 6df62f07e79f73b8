"""A bug as a unified diff: made, applied, reversed, and refused when it does not match."""

from __future__ import annotations

import pytest
from swift_gym_code.repair.mutation import mutations
from swift_gym_code.repair.patches import (
    PatchError,
    apply_patch,
    apply_to_text,
    make_patch,
    patched_path,
)

BEFORE = "".join(f"# line {i}\n" for i in range(1, 30)) + "def f(a, b):\n    return a < b\n"


def test_round_trip_of_every_mutation():
    for m in mutations(BEFORE, "pkg/mod.py"):
        after = m.apply(BEFORE)
        patch = make_patch("pkg/mod.py", BEFORE, after)
        assert patch.startswith("--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ ")
        assert patched_path(patch) == "pkg/mod.py"
        assert apply_to_text(BEFORE, patch) == after
        assert apply_to_text(after, patch, reverse=True) == BEFORE


def test_several_hunks_and_form_feeds_round_trip():
    before = "a\n\x0cb\n" + "".join(f"{i}\n" for i in range(40)) + "z\n"
    after = before.replace("a\n", "A\nA2\n").replace("z\n", "Z\n")
    patch = make_patch("x.py", before, after)
    assert patch.count("@@ -") == 2
    assert apply_to_text(before, patch) == after
    assert apply_to_text(after, patch, reverse=True) == before


def test_a_patch_that_does_not_match_is_refused(tmp_path):
    after = BEFORE.replace("a < b", "a >= b")
    patch = make_patch("pkg/mod.py", BEFORE, after)
    (tmp_path / "pkg").mkdir()
    target = tmp_path / "pkg" / "mod.py"
    target.write_text(BEFORE)
    assert apply_patch(tmp_path, patch) == target
    assert target.read_text() == after
    with pytest.raises(PatchError, match="already applied"):
        apply_patch(tmp_path, patch)
    apply_patch(tmp_path, patch, reverse=True)
    assert target.read_text() == BEFORE


def test_a_patch_may_not_leave_the_tree(tmp_path):
    patch = make_patch("../evil.py", "a\n", "b\n")
    with pytest.raises(PatchError, match="outside the tree"):
        apply_patch(tmp_path / "tree", patch)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("a\nb\nlast", "a\nB\nlast"),
        ("a\nb\nlast", "a\nb\nLAST"),
        ("a\nb\nlast", "a\nlast"),
        ("a\nb\nlast\n", "a\nb\nlast"),
    ],
)
def test_files_without_a_final_newline_round_trip(before, after):
    patch = make_patch("m.py", before, after)
    assert apply_to_text(before, patch) == after
    assert apply_to_text(after, patch, reverse=True) == before
