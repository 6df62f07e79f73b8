"""A real, short `swift rlhf` GRPO run on CPU trains verifiers environments through the
`swift_gym` scheduler: the tests' tiny model plays `verifiers.sg_reverse` (one turn, scored by
the environment's own reward) and `verifiers.sg_guess` (the environment's own multi-turn loop,
cut off at --max_turns). Needs ms-swift and verifiers in one venv (see the README: possible,
with verifiers' openai 2.x and mcp 2.0); skipped where ms-swift is not installed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("swift", reason="ms-swift is not installed (pip install ms-swift==4.6.0)")

MAX_TURNS = 2


def test_grpo_trains_verifiers_environments(tmp_path: Path) -> None:
    import jsonl_records
    from grpo_run import swift_rlhf

    dataset = tmp_path / "rows.jsonl"
    rows = [
        {"name": "verifiers.sg_reverse", "index": 1},
        {"name": "verifiers.sg_guess", "index": 0},
    ]
    with dataset.open("w") as out:
        for config in rows:
            row = {"messages": [{"role": "user", "content": "<placeholder>"}], "env_config": config}
            out.write(json.dumps(row) + "\n")
    home = tmp_path / "home"
    home.mkdir()
    trajectories = tmp_path / "trajectories"
    environ = {
        "SWIFT_GYM_TRAJECTORIES": str(trajectories),
        "HOME": str(home),
        "OMP_NUM_THREADS": "2",
    }
    run_dir = swift_rlhf(
        tmp_path, dataset, "verifiers.sg_reverse", MAX_TURNS, environ,
        reward_funcs=("swift_gym_total",), args=["--dataloader_num_workers", "0"],
    )  # fmt: skip
    (path,) = trajectories.iterdir()
    records = jsonl_records.records(path)
    assert len(records) == 4  # 2 steps x 2 completions, one row a step
    by_env = {r["env"]: [x for x in records if x["env"] == r["env"]] for r in records}
    assert sorted(by_env) == ["verifiers.sg_guess", "verifiers.sg_reverse"]
    for record in by_env["verifiers.sg_reverse"]:  # the environment's own prompt and score
        assert record["observation"] == "Reverse the word: hello"
        (turn,) = record["turns"]
        assert turn["done"] is True
        assert turn["reward"] == (1.0 if turn["reply"].strip() == "olleh" else 0.0)
        assert turn["info"]["verifiers"]["taskset"] == "sg_reverse"
        assert "reward.exact" in turn["info"]["metrics"]
    for record in by_env["verifiers.sg_guess"]:  # its own loop answers; cut off at max_turns
        assert record["observation"].startswith("Guess my number between 1 and 8")
        assert record["status"] == "max_turns" and len(record["turns"]) == MAX_TURNS
        assert record["turns"][0]["observation"] in {"higher", "lower", "Reply with a number."}
    assert (run_dir / "completions.jsonl").exists()
    runtimes = home / ".cache" / "verifiers" / "runtimes" / "subprocess"
    assert not any(runtimes.glob("*"))  # every episode's runtime folder removed, cut off or not
