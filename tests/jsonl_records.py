"""JSON lines as swift-gym's readers split them: on "\n" only.

A tiny random model's reply can hold U+2028, U+0085 or other characters that `str.splitlines`
treats as line breaks and that JSON writes unescaped, so a test that split a trajectory file
with `splitlines` cut a record in two (a CI run failed that way); `rows.read_jsonl`, which
`replay`, `report` and `export` use, splits bytes on b"\n", as this does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def lines(path: Path) -> list[str]:
    """The non-blank lines of `path`, split on "\n" only."""
    return [line for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def records(path: Path) -> list[Any]:
    """Each line of the JSONL file at `path`, parsed."""
    return [json.loads(line) for line in lines(path)]
