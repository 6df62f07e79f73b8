"""Plays many episodes on one asyncio loop, `concurrency` at a time, with a progress bar.

Records go to the trajectory file in index order as episodes end, and a slim copy of each is
kept for the summary, so memory does not grow with observations.

One mechanism stops a run early, `Stop`: no new episode starts once it is set. It is set by
SIGINT or SIGTERM, or when the policy says it can no longer answer (its endpoint is down):
- after a signal, the episodes in flight get `GRACE` seconds to end (none after a second
  signal), then are cancelled. The file and the summary keep the episodes before the first one
  that did not end: whole lines, in index order, no gaps; the rest count as not played.
- when the policy gave up, the episodes in flight end as usual (their requests fail or succeed
  on their own), and every episode not started is recorded with status "not_played".
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.text import Text

from .console import stderr
from .episodes import EpisodeSpec, not_played, run_episode
from .output_files import open_output
from .policies import Policy
from .progress import progress_bar
from .trajectories import OrderedWriter

GRACE = 1.0
"""Seconds the episodes in flight get to end after the first SIGINT or SIGTERM."""
SIGNALS = (signal.SIGINT, signal.SIGTERM)


@dataclass
class RunResult:
    """What a run played: slim records (played, and recorded as not played) for the summary."""

    records: list[dict[str, Any]]
    unrecorded: int = 0
    """Episodes not played that have no record (a signal stopped the run)."""
    stopped: str | None = None
    """Why the run stopped before the end, or None."""
    signal: int | None = None
    """The signal that stopped it, or None."""


@dataclass
class Stop:
    """Why no new episode may start, set once; and whether to hurry (a second signal)."""

    reason: str | None = None
    signal: int | None = None
    signalled: asyncio.Event = field(default_factory=asyncio.Event)
    hurry: asyncio.Event = field(default_factory=asyncio.Event)

    def give_up(self, reason: str) -> None:
        if self.reason is None:
            self.reason = reason
            stderr().print(
                Text.assemble(
                    ("stopping: ", "bold red"),
                    f"{reason}. No new episodes; those not started are recorded as not_played.",
                )
            )

    def on_signal(self, signum: int) -> None:
        if self.signal is not None:
            self.hurry.set()
            return
        self.signal = signum
        name = "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name
        self.reason = f"interrupted by {name}"
        self.signalled.set()
        stderr().print(
            Text.assemble(
                ("interrupted: ", "bold yellow"),
                f"no new episodes; the ones in flight get {GRACE:g} s to end "
                "(press Ctrl-C again to stop them now)",
            )
        )


@contextmanager
def _signals_stop(stop: Stop) -> Iterator[None]:
    """SIGINT and SIGTERM set `stop` while the run lasts, instead of raising in the loop."""
    loop = asyncio.get_running_loop()

    def handle(signum: int, frame: Any) -> None:
        loop.call_soon_threadsafe(stop.on_signal, signum)

    previous: dict[int, Any] = {}
    try:
        for signum in SIGNALS:
            previous[signum] = signal.signal(signum, handle)
    except ValueError:  # not the main thread: signals stay as they are
        pass
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


async def run_episodes(
    specs: Iterator[EpisodeSpec],
    total: int,
    policy: Policy,
    max_turns: int,
    concurrency: int,
    output: Path | None,
) -> RunResult:
    """Play every spec, or until stopped (see the module docstring).

    The output file is opened only once the policy is ready (an API without the model asked
    for stops the run before any file is made).
    """
    from ..registry import default_registry

    registry = default_registry()
    played: dict[int, dict[str, Any]] = {}
    wins = 0
    stop = Stop()
    try:
        await policy.prepare()
        with (
            open_output(output, atomic=False) if output else nullcontext() as file,
            progress_bar() as bar,
            _signals_stop(stop),
        ):
            writer = OrderedWriter(file)
            task = bar.add_task(policy.name, total=total)

            async def worker() -> None:
                nonlocal wins
                while True:
                    await asyncio.sleep(0)  # a signal's handler runs here, between episodes
                    reason = policy.stop_reason()
                    if reason:
                        stop.give_up(reason)
                    if stop.reason is not None:
                        return
                    spec = next(specs, None)  # one shared iterator: each spec to one worker
                    if spec is None:
                        return
                    record = await run_episode(spec, policy, max_turns, registry)
                    writer.add(record)
                    played[spec.index] = _slim(record)
                    wins += bool(record["success"])
                    bar.update(task, advance=1, description=f"{policy.name}: {wins} won")

            workers = [asyncio.create_task(worker()) for _ in range(min(concurrency, total))]
            await _supervise(workers, stop)
            if stop.signal is not None:
                kept = _prefix(played)
                return RunResult(kept, total - len(kept), stop.reason, stop.signal)
            records = list(played.values())
            if stop.reason is not None:
                for spec in specs:
                    record = not_played(spec, policy.name)
                    writer.add(record)
                    records.append(_slim(record))
            return RunResult(records, 0, stop.reason)
    finally:
        await policy.close()


async def _supervise(workers: list[asyncio.Task[None]], stop: Stop) -> None:
    """Wait for the workers to end. After a first signal, give them `GRACE` seconds (less if a
    second one comes), then cancel those left. A worker's error cancels the others and is raised.
    """
    signalled = asyncio.ensure_future(stop.signalled.wait())
    try:
        pending: set[asyncio.Future[Any]] = set(workers)
        while pending and not signalled.done():
            done, pending = await asyncio.wait(
                pending | {signalled}, return_when=asyncio.FIRST_COMPLETED
            )
            pending.discard(signalled)
            for task in done - {signalled}:
                if task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]
        if pending:
            all_ended = asyncio.ensure_future(asyncio.wait(pending))
            hurried = asyncio.ensure_future(stop.hurry.wait())
            await asyncio.wait(
                {all_ended, hurried}, timeout=GRACE, return_when=asyncio.FIRST_COMPLETED
            )
            all_ended.cancel()
            hurried.cancel()
    finally:
        signalled.cancel()
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)


def _prefix(played: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """The records of episodes 0, 1, 2... up to the first one missing."""
    kept = []
    while len(kept) in played:
        kept.append(played[len(kept)])
    return kept


def _slim(record: dict[str, Any]) -> dict[str, Any]:
    """What the summary needs of a record; observations and infos are left to the file."""
    kept = ("total_reward", "num_turns", "success", "status", "error")
    slim = {key: record[key] for key in kept}
    slim["turns"] = [{"valid_action": turn["valid_action"]} for turn in record["turns"]]
    return slim
