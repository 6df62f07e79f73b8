"""`benchmarks/learning/run.py --set KEY=VALUE`: one run's settings changed from the command line,
typed as each field is declared, and a wrong key or value refused with what to fix."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks" / "learning"))

import run


def test_values_are_read_as_their_fields_types() -> None:
    changed = run.override(
        run.FULL, ["a_lr=1e-3", "a_grpo_steps=7", "a_format_epochs=2.5", "model_size=small"]
    )
    assert (changed.a_lr, changed.a_grpo_steps) == (0.001, 7)
    assert changed.a_format_epochs == 2.5  # a float field whose default is written as 10
    assert changed.model_size == "small"
    assert changed.b_lr == run.FULL.b_lr  # the rest as it was


def test_none_clears_an_optional_field_and_a_later_pair_wins() -> None:
    assert run.override(run.QUICK, ["sft_max_steps=none"]).sft_max_steps is None
    assert run.override(run.FULL, ["sft_max_steps=3"]).sft_max_steps == 3
    assert run.override(run.FULL, ["a_lr=1", "a_lr=2"]).a_lr == 2.0


@pytest.mark.parametrize(
    ("pair", "says"),
    [
        ("nope=1", "KEY one of model_size, eval_episodes"),
        ("a_lr", "expected KEY=VALUE"),
        ("a_grpo_steps=x", "a_grpo_steps takes int"),
        ("a_grpo_steps=none", "a_grpo_steps takes int"),  # not optional
    ],
)
def test_a_bad_pair_is_refused_naming_it(pair: str, says: str) -> None:
    with pytest.raises(SystemExit) as refused:
        run.override(run.FULL, [pair])
    assert pair in str(refused.value) and says in str(refused.value)
