"""Plays many episodes on one asyncio loop, `concurrency` at a time, with a progress bar.

Records go to the trajectory file (in index order) as episodes end, and a slim copy of each is
kept for the summary, so memory does not grow with observations.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from .episodes import EpisodeSpec, run_episode
from .output_files import open_output
from .policies import Policy
from .progress import progress_bar
from .trajectories import OrderedWriter


async def run_episodes(
    specs: Iterator[EpisodeSpec],
    total: int,
    policy: Policy,
    max_turns: int,
    concurrency: int,
    output: Path | None,
) -> list[dict[str, Any]]:
    """Play every spec; the records, slimmed for the summary.

    The output file is opened only once the policy is ready (an API without the model asked
    for stops the run before any file is made).
    """
    from ..registry import default_registry

    registry = default_registry()
    records: list[dict[str, Any]] = []
    wins = 0
    try:
        await policy.prepare()
        with (
            open_output(output, atomic=False) if output else nullcontext() as file,
            progress_bar() as bar,
        ):
            writer = OrderedWriter(file)
            task = bar.add_task(policy.name, total=total)

            async def worker() -> None:
                nonlocal wins
                for spec in specs:  # one shared iterator: each spec goes to one worker
                    record = await run_episode(spec, policy, max_turns, registry)
                    writer.add(record)
                    records.append(_slim(record))
                    wins += bool(record["success"])
                    bar.update(task, advance=1, description=f"{policy.name}: {wins} won")

            try:
                await asyncio.gather(*(worker() for _ in range(min(concurrency, total))))
            finally:
                writer.finish()
    finally:
        await policy.close()
    return records


def _slim(record: dict[str, Any]) -> dict[str, Any]:
    """What the summary needs of a record; observations and infos are left to the file."""
    kept = ("total_reward", "num_turns", "success", "status", "error")
    slim = {key: record[key] for key in kept}
    slim["turns"] = [{"valid_action": turn["valid_action"]} for turn in record["turns"]]
    return slim
