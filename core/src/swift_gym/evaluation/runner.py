"""Plays many episodes on one asyncio loop, `concurrency` at a time.

Records go to the trajectory file in index order as episodes end. The run keeps each record
whole, or (`slim`, as the command asks) only what the summary needs, so memory does not grow
with observations.

One mechanism stops a run early, `Stop`: no new episode starts once it is set.
- `Stop.interrupt` (the command calls it on SIGINT and SIGTERM; a caller may call it from the
  loop at any time): the episodes in flight get `GRACE` seconds to end (none after a second
  interrupt), then are cancelled. The file and the result keep the episodes before the first one
  that did not end: whole lines, in index order, no gaps; the rest count as not played.
- when the policy says it can no longer answer (its endpoint is down), or an episode's env
  raised `EnvUnavailableError` (its server is down), the episodes in flight end as usual (their
  requests fail or succeed on their own), and every episode not started is recorded with status
  "not_played". The view hears why once.
The runner installs no signal handler: signals belong to the program (see `cli.evaluate`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..episode.records import new_record
from ..errors import printable
from ..output_files import open_output
from . import progress
from .episodes import EpisodeSpec, run_episode
from .policies import Policy
from .records import NOT_PLAYED, OrderedWriter
from .records import slim as slim_record

GRACE = 1.0
"""Seconds the episodes in flight get to end after the first interrupt."""
MAX_REASON_CHARS = 300
"""An env's reason to stop, as shown (it quotes the row's URL: untrusted)."""


@dataclass
class RunResult:
    """What a run played: its records (played, and recorded as not played), in index order."""

    records: list[dict[str, Any]]
    unrecorded: int = 0
    """Episodes not played that have no record (an interrupt stopped the run)."""
    stopped: str | None = None
    """Why the run stopped before the end, or None."""
    signal: int | None = None
    """The signal that stopped it, if the interrupt came with one."""


@dataclass
class Stop:
    """Why no new episode may start, set once; and whether to hurry (a second interrupt).

    Use it from the loop the run is on (from another thread: `loop.call_soon_threadsafe`).
    """

    reason: str | None = None
    signal: int | None = None
    interrupted: asyncio.Event = field(default_factory=asyncio.Event)
    hurry: asyncio.Event = field(default_factory=asyncio.Event)

    def give_up(self, reason: str) -> bool:
        """Start no new episode, because of `reason`; whether this was the first reason."""
        if self.reason is None:
            self.reason = reason
            return True
        return False

    def interrupt(self, reason: str = "interrupted", signal: int | None = None) -> None:
        """End the run: the episodes in flight get `GRACE` seconds; again: end them now."""
        if self.interrupted.is_set():
            self.hurry.set()
            return
        self.reason = reason
        self.signal = signal
        self.interrupted.set()


async def run_episodes(
    specs: Iterator[EpisodeSpec],
    total: int,
    policy: Policy,
    max_turns: int | None,
    concurrency: int,
    output: Path | str | None,
    *,
    stop: Stop | None = None,
    view: progress.RunView | None = None,
    slim: bool = False,
    build: Callable[[str, dict[str, Any]], Awaitable[Any]] | None = None,
) -> RunResult:
    """Play every spec, or until stopped (see the module docstring).

    The output file is opened only once the policy is ready (an API without the model asked
    for stops the run before any file is made). `build` makes each episode's env elsewhere
    (see `run_episode`).
    """
    from ..registry import default_registry

    registry = default_registry()
    view = view or progress.Silent()
    stop = stop or Stop()
    played: dict[int, dict[str, Any]] = {}
    wins = 0
    env_down: list[str] = []  # why, once an env said its server is down

    def down(why: str) -> None:
        env_down.append(f"the env server is down: {printable(why, MAX_REASON_CHARS)}")

    token = progress.watching(view)
    try:
        bound = getattr(policy, "set_concurrency", None)
        if callable(bound):
            bound(concurrency)
        await policy.prepare()
        with open_output(output, atomic=False) if output else nullcontext() as file:
            writer = OrderedWriter(file)
            view.start(policy.name, total)
            try:

                async def worker() -> None:
                    nonlocal wins
                    while True:
                        await asyncio.sleep(0)  # a signal's handler runs here, between episodes
                        reason = policy.stop_reason() or next(iter(env_down), None)
                        if reason and stop.give_up(reason):
                            view.note(
                                "stopping",
                                f"{reason}. No new episodes; those not started are recorded "
                                "as not_played.",
                            )
                        if stop.reason is not None:
                            return
                        spec = next(specs, None)  # one shared iterator: each spec to one worker
                        if spec is None:
                            return
                        record = await run_episode(spec, policy, max_turns, registry, down, build)
                        writer.add(record)
                        played[spec.index] = slim_record(record) if slim else record
                        wins += bool(record["success"])
                        view.advance(record, wins)

                workers = [asyncio.create_task(worker()) for _ in range(min(concurrency, total))]
                await _supervise(workers, stop)
            finally:
                view.end()
            if stop.interrupted.is_set():
                kept = _prefix(played)
                return RunResult(kept, total - len(kept), stop.reason, stop.signal)
            records = [played[index] for index in sorted(played)]
            if stop.reason is not None:
                for spec in specs:
                    record = new_record(
                        spec.index,
                        spec.env,
                        spec.env_config,
                        policy.name,
                        spec.rollout_fields(),
                        status=NOT_PLAYED,
                    )
                    writer.add(record)
                    records.append(slim_record(record) if slim else record)
            return RunResult(records, 0, stop.reason)
    finally:
        progress.reset(token)
        await policy.close()


async def _supervise(workers: list[asyncio.Task[None]], stop: Stop) -> None:
    """Wait for the workers to end. After a first interrupt, give them `GRACE` seconds (less if
    a second one comes), then cancel those left. A worker's error cancels the others and is
    raised."""
    interrupted = asyncio.ensure_future(stop.interrupted.wait())
    try:
        pending: set[asyncio.Future[Any]] = set(workers)
        while pending and not interrupted.done():
            done, pending = await asyncio.wait(
                pending | {interrupted}, return_when=asyncio.FIRST_COMPLETED
            )
            pending.discard(interrupted)
            for task in done - {interrupted}:
                error = task.exception()
                if error is not None:
                    raise error
        if pending:
            all_ended = asyncio.ensure_future(asyncio.wait(pending))
            hurried = asyncio.ensure_future(stop.hurry.wait())
            await asyncio.wait(
                {all_ended, hurried}, timeout=GRACE, return_when=asyncio.FIRST_COMPLETED
            )
            all_ended.cancel()
            hurried.cancel()
    finally:
        interrupted.cancel()
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)


def _prefix(played: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """The records of episodes 0, 1, 2... up to the first one missing."""
    kept: list[dict[str, Any]] = []
    while len(kept) in played:
        kept.append(played[len(kept)])
    return kept
