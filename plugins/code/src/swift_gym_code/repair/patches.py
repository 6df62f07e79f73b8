"""A task's bug as a unified diff, and applying one (forward to plant the bug, reversed to fix
it) without the `patch` program: the env does it in Python, on the host, and the oracle
applies the reverse through the tools. A hunk whose context does not match is an error, never
a fuzzy apply."""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass
from pathlib import Path

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def lines_of(text: str) -> list[str]:
    """The text's lines with their ends, split at "\n" only (str.splitlines also splits at
    form feeds and other separators that sources and patches keep inside a line)."""
    return re.findall(r"[^\n]*\n|[^\n]+\Z", text)


class PatchError(ValueError):
    """A patch that does not apply to the file it names."""


def make_patch(path: str, before: str, after: str) -> str:
    """The unified diff (`a/<path>`, `b/<path>`, three lines of context) from before to after."""
    lines = difflib.unified_diff(
        lines_of(before),
        lines_of(after),
        f"a/{path}",
        f"b/{path}",
        n=3,
    )
    # A last line without its newline is marked the way diff and patch mark it.
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


@dataclass(frozen=True)
class _Hunk:
    old_start: int
    new_start: int
    old: list[str]
    new: list[str]


def patched_path(patch: str) -> str:
    """The file (relative to the project's root) a one-file patch changes."""
    for line in lines_of(patch):
        if line.startswith("+++ "):
            name = line[4:].split("\t")[0].rstrip("\n")
            return name[2:] if name.startswith("b/") else name
    raise PatchError("the patch names no file (no '+++ ' line)")


def _hunks(patch: str) -> list[_Hunk]:
    hunks: list[_Hunk] = []
    lines = lines_of(patch)
    i = 0
    while i < len(lines):
        match = _HUNK.match(lines[i])
        i += 1
        if not match:
            continue
        old_count = int(match.group(2) or 1)
        new_count = int(match.group(4) or 1)
        old: list[str] = []
        new: list[str] = []
        tag = ""
        while i < len(lines) and (
            len(old) < old_count or len(new) < new_count or lines[i].startswith("\\")
        ):
            line = lines[i]
            i += 1
            if line.startswith("\\"):  # the line before has no newline at the end of file
                for side in (old, new) if tag == " " else (old,) if tag == "-" else (new,):
                    side[-1] = side[-1].removesuffix("\n")
                continue
            tag, body = line[:1], line[1:]
            if tag == " ":
                old.append(body)
                new.append(body)
            elif tag == "-":
                old.append(body)
            elif tag == "+":
                new.append(body)
            else:
                raise PatchError(f"unexpected line in a hunk: {line!r}")
        old_start, new_start = int(match.group(1)), int(match.group(3))
        hunks.append(
            _Hunk(
                old_start - 1 if old_count else old_start,
                new_start - 1 if new_count else new_start,
                old,
                new,
            )
        )
    if not hunks:
        raise PatchError("the patch holds no hunk")
    return hunks


def apply_to_text(text: str, patch: str, *, reverse: bool = False) -> str:
    """The text with the patch applied (or reversed); PatchError when a hunk does not match."""
    lines = lines_of(text)
    offset = 0
    for hunk in _hunks(patch):
        old, new = (hunk.new, hunk.old) if reverse else (hunk.old, hunk.new)
        # Reversed, a hunk sits where the patched file has it (the header's + side).
        at = (hunk.new_start if reverse else hunk.old_start) + offset
        if lines[at : at + len(old)] != old:
            raise PatchError(
                f"{patched_path(patch)}: a hunk does not match the file at line {at + 1}; "
                f"was the patch already {'reversed' if reverse else 'applied'}?"
            )
        lines[at : at + len(old)] = new
        offset += len(new) - len(old)
    return "".join(lines)


def apply_patch(root: str | os.PathLike[str], patch: str, *, reverse: bool = False) -> Path:
    """Apply a one-file patch to the tree at root, in place; the changed file's path."""
    relative = patched_path(patch)
    target = Path(root) / relative
    resolved_root = Path(root).resolve()
    if resolved_root not in target.resolve().parents:
        raise PatchError(f"the patch names a file outside the tree: {relative!r}")
    with open(target, encoding="utf-8", newline="") as f:
        text = f.read()
    patched = apply_to_text(text, patch, reverse=reverse)
    with open(target, "w", encoding="utf-8", newline="") as f:
        f.write(patched)
    return target
