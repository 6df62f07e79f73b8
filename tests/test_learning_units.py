"""`benchmarks/learning/run.py`'s `run_units`: with several units at once, the first one that
fails stops every unit not yet started, including the one its own pool thread would take next,
and its error is the one raised. The units are played by an in-process fake `run_unit`."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks" / "learning"))

import run


def test_a_failed_unit_starts_no_other(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    started: list[tuple[str, int]] = []
    c1_running, never = threading.Event(), threading.Event()

    def fake_run_unit(name: str, seed: int, *rest: object) -> dict:
        started.append((name, seed))
        if (name, seed) == ("C", 0):
            assert c1_running.wait(10)  # both pool threads are busy
            raise RuntimeError("C0 failed")
        c1_running.set()
        never.wait(0.5)  # C1 is still running when C0's thread is free
        return {"objs": [], "files": {}, "log": [], "resumed": 0}

    monkeypatch.setattr(run, "run_unit", fake_run_unit)
    units = [(name, seed) for name in "ABC" for seed in range(2)]
    with pytest.raises(RuntimeError, match="C0 failed"):
        run.run_units(units, run.QUICK, tmp_path, 1, 2, {})
    assert sorted(started) == [("C", 0), ("C", 1)]


def test_units_that_pass_all_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def fake_run_unit(name: str, seed: int, *rest: object) -> dict:
        return {"objs": [name, seed], "files": {}, "log": [], "resumed": 0}

    monkeypatch.setattr(run, "run_unit", fake_run_unit)
    units = [(name, seed) for name in "ABC" for seed in range(2)]
    done = run.run_units(units, run.QUICK, tmp_path, 1, 2, {})
    assert {u: d["objs"] for u, d in done.items()} == {u: list(u) for u in units}
