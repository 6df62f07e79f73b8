"""`swift-gym eval` on `dataset --remote` rows: the tables name the env the server played,
not `openenv` (a real `swift-gym serve` on 127.0.0.1)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import serve_process
from cli_runner import run

pytest.importorskip("websockets")


@pytest.fixture(scope="module")
def lake() -> Iterator[serve_process.Server]:
    server = serve_process.start("frozen_lake")
    yield server
    server.stop()


def test_remote_rows_are_labelled_by_the_served_env(
    lake: serve_process.Server, tmp_path: Path
) -> None:
    rows = tmp_path / "remote.jsonl"
    for size in (4, 5):
        made = run("dataset", "frozen_lake", "-n", "3", "--set", f"size={size}",
                   "--remote", lake.url, "-o", "-")  # fmt: skip
        assert made.returncode == 0, made.stderr
        with rows.open("a") as file:
            file.write(made.stdout)
    result = run("eval", "--dataset", str(rows), "--policy", "random", "--json")
    assert result.returncode == 0, result.stderr
    per_env = json.loads(result.stdout)["per_env"]
    assert {env: summary["episodes"] for env, summary in per_env.items()} == {
        "frozen_lake via openenv size=4": 3,
        "frozen_lake via openenv size=5": 3,
    }
