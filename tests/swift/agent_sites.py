"""A distribution made in a test's folder: an example's agent program, subclassed to write
`start SEED` when it starts and `end SEED` in its `finally`, so a test reads, after a run, that
every program it cut off finished its cleanup; and `train_marked`, the GRPO run the agent
training tests share."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonl_records

MARKED = '''
import os

from {module} import {base}


class MarkedAgent({base}):
    """The example's program, writing `start SEED` when it starts and `end SEED` in finally."""

    async def run(self, client):
        with open(os.environ["AGENT_MARKS"], "a") as marks:
            marks.write(f"start {{self.config.seed}}\\n")
        try:
            return await super().run(client)
        finally:
            with open(os.environ["AGENT_MARKS"], "a") as marks:
                marks.write(f"end {{self.config.seed}}\\n")
'''


def marked_site(root: Path, name: str, module: str, base: str) -> Path:
    """A folder for PYTHONPATH holding a distribution that registers the env `name` =
    `{name}_program:MarkedAgent`, a subclass of `module.base` that writes to $AGENT_MARKS."""
    site = root / "site"
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[swift_gym.envs]\n{name} = {name}_program:MarkedAgent\n"
    )
    (site / f"{name}_program.py").write_text(MARKED.format(module=module, base=base))
    return site


@dataclass(frozen=True)
class MarkedRun:
    """What a `train_marked` run left: its output folder, its trajectory records and the
    marks file its marked programs wrote."""

    run_dir: Path
    records: list[dict[str, Any]]
    marks: Path


def train_marked(
    tmp_path: Path,
    marked: tuple[str, str, str],
    rows: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    model: Path,
    max_turns: int,
) -> MarkedRun:
    """A real `swift rlhf` GRPO run of docs/training.md's agent program command ("An agent
    program", `--agent_template hermes`), as the page's list of changes says, on `rows` (each
    names its env; each row's `tools` column holds `tools`), with `marked` = (name, module,
    base) registered by `marked_site`."""
    from grpo_run import page_rlhf

    dataset = tmp_path / "rows.jsonl"
    with dataset.open("w") as out:
        for config in rows:
            row = {
                "messages": [{"role": "user", "content": "<placeholder>"}],
                "tools": json.dumps(tools),
                "env_config": config,
            }
            out.write(json.dumps(row) + "\n")
    marks = tmp_path / "marks.txt"
    site = marked_site(tmp_path, *marked)
    environ = {
        "AGENT_MARKS": str(marks),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])),
        "OMP_NUM_THREADS": "2",
    }
    run = page_rlhf(
        "agent", tmp_path, model=model, dataset=dataset, max_turns=max_turns, env=environ,
        flags={"--max_completion_length": ["2"], "--dataloader_num_workers": ["0"]},
    )  # fmt: skip
    assert run.trajectories is not None, "the page's command sets no SWIFT_GYM_TRAJECTORIES"
    (path,) = run.trajectories.iterdir()
    return MarkedRun(run.run_dir, jsonl_records.records(path), marks)
