"""Trajectories from training: each episode the `swift_gym` scheduler finishes, as one JSON line.

With SWIFT_GYM_TRAJECTORIES=DIR set, every process that plays episodes (each `swift rlhf` trainer
rank, each `swift rollout` worker) appends them to a file of its own,
`DIR/<host>-<pid>-<UTC start time>.jsonl`, created exclusively: two processes never share a file,
and a forked child opens its own. A record has the fields of `swift-gym eval -o` (see
`cli/trajectories.py`), so `swift-gym replay` reads the file, plus `training`: where it happened.

Writing never slows or fails a rollout: the scheduler encodes each turn as it ends (`encoded_turn`:
its data is fresh in the CPU's caches then, which halves the cost per episode against building
the whole record at the end), and each line is assembled and written with one `os.write` on an
O_APPEND descriptor, so a killed process leaves whole lines (Linux copies a write page by page
and a SIGKILL can stop it between two, so a record of hundreds of KB can be cut: `replay` skips
such a last line with a warning), and a line the disk could hold only in part is cut off again.
The first error of any kind (a bad path, a file where DIR should be, a read-only or full disk)
is one warning; the process then writes nothing more.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import logging
import math
import os
import re
import socket
import sys
import threading
import time
import weakref
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any, cast

from .. import json_text

# The episode room's records and rules, so a training record means what an eval record means.
from ..episode.records import new_record, turn_record
from ..episode.status import final_status, succeeded

logger = logging.getLogger("swift_gym")

VARIABLE = "SWIFT_GYM_TRAJECTORIES"
POLICY = "training"
"""The `policy` of a training record: the model being trained wrote the replies."""
OVERFLOWED = (
    "the total reward overflowed: the step rewards sum beyond the largest float "
    f"({sys.float_info.max:.4g})"
)


def played_turns(
    played: list[tuple[Any, str]], rewards: list[float], infos: list[Any], done: bool
) -> list[dict[str, Any]]:
    """The turn records of an episode: the scheduler keeps (reply, observation) per step, and
    each step's reward and info (one of each per step that returned)."""
    last = len(played)
    steps = zip(played, rewards, infos, strict=True)
    return [
        turn_record(number, reply, observation, reward, done and number == last, info)
        for number, ((reply, observation), reward, info) in enumerate(steps, 1)
    ]


def encoded_turn(record: dict[str, Any]) -> Any:
    """A turn's record (`episode.records.turn_record`), encoded as the turn ends (its data is
    fresh in the CPU's caches then, and the bytes are one object garbage collection never
    scans): a `msgspec.Raw` that `encoded_line` splices into the episode's line; the record
    itself without msgspec or when it refuses it."""
    encode = _fast_encoder()
    if encode is not None:
        try:
            return _raw(encode(record))
        except Exception:
            pass
    return record


def episode_record(
    episode: Mapping[str, Any],
    turns: list[dict[str, Any]],
    total_reward: float,
    done: bool,
    training: dict[str, Any],
) -> dict[str, Any]:
    """The eval record of a finished training episode.

    `episode` holds what the scheduler kept: `env`, `env_config` (the dataset row's),
    `system_prompt`, `observation` (the first), `reset_info`, `error`, and `tools` (the
    schemas a tool env offered; kept in the record only when there are some) and
    `context_full` (set when the next prompt would not have fit: status "context_full").
    `index` is the process's `training.sequence`; `seed` is the row's `env_config.seed`.
    `total_reward` is what training got (0 for an episode an env error ended); beyond the
    largest float (finite step rewards that overflow the sum) the episode is an error.
    """
    env_config = episode.get("env_config")
    row = env_config if isinstance(env_config, dict) else {}
    record = new_record(training["sequence"], episode["env"], row, POLICY)
    record.update(
        env_config=env_config,
        system_prompt=episode.get("system_prompt"),
        observation=episode.get("observation"),
        reset_info=episode.get("reset_info"),
        turns=turns,
        num_turns=len(turns),
        total_reward=total_reward,
    )
    if episode.get("tools"):
        record["tools"] = episode["tools"]
    if episode.get("error"):
        record.update(status="error", error=episode["error"])
    elif not math.isfinite(total_reward):  # JSON has no inf: it would be written as null
        record.update(status="error", error=OVERFLOWED, total_reward=None)
    else:  # as `swift-gym eval` decides them, from the last step's info
        info = _last_info(episode, turns)
        status = "context_full" if episode.get("context_full") else final_status(info, done)
        record["status"] = status
        record["success"] = succeeded(info, done, total_reward)
    record["training"] = training
    return record


def _last_info(episode: Mapping[str, Any], turns: list[Any]) -> Any:
    """The last step's info: from the last turn, or (turns encoded already) `step_infos`."""
    if not turns:
        return {}
    if isinstance(turns[-1], dict):
        return turns[-1]["info"]
    infos = episode.get("step_infos") or [{}]
    return infos[-1] if isinstance(infos[-1], Mapping) else {}


def _whole_number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


class TrajectoryLog:
    """What one scheduler writes: its finished episodes, each saying where training was."""

    def __init__(self, directory: str, trainer: Any = None):
        self.directory = directory
        self._trainer = weak_reference(trainer)
        self.rank = self._rank(trainer)
        self.host = socket.gethostname()

    def attach(self, trainer: Any) -> None:
        """Where training is comes from `trainer` from now on (`trainer_seam`)."""
        self._trainer = weak_reference(trainer)
        self.rank = self._rank(trainer)

    @classmethod
    def from_environment(cls, trainer: Any = None) -> TrajectoryLog | None:
        """The log SWIFT_GYM_TRAJECTORIES asks for, or None when it is unset or empty."""
        directory = os.environ.get(VARIABLE, "").strip()
        return cls(directory, trainer) if directory else None

    def step(self) -> int | None:
        """The trainer's `state.global_step` now (optimizer steps done), or None without one."""
        trainer = self._trainer() if self._trainer is not None else None
        return _whole_number(getattr(getattr(trainer, "state", None), "global_step", None))

    @staticmethod
    def _rank(trainer: Any) -> int | None:
        """The trainer's process index; a `swift rollout` worker's data-parallel rank."""
        rank = _whole_number(getattr(getattr(trainer, "accelerator", None), "process_index", None))
        for variable in ("SWIFT_ROLLOUT_DP_RANK", "RANK"):
            if rank is None:
                rank = _whole_number(os.environ.get(variable))
        return rank

    def episode_finished(
        self, episode: Mapping[str, Any], rewards: list[float], total_reward: float, done: bool
    ) -> None:
        """Append the episode's record to this process's file; never raises, never blocks long.

        `episode` as `episode_record` takes it, plus `step_infos` and either `turns` (each
        from `encoded_turn`, as the scheduler keeps them) or `played` (see `played_turns`);
        `rewards` are its step rewards.
        """
        file = trajectory_file(self.directory)
        step, now = self.step(), time.time()  # where training is as the episode ends

        def build(sequence: int) -> dict[str, Any]:
            turns = episode.get("turns")
            if turns is None:
                played = episode.get("played", [])
                turns = played_turns(played, rewards, episode.get("step_infos", []), done)
            training = {
                "step": step,
                "time": now,
                "sequence": sequence,
                "host": self.host,
                "pid": os.getpid(),
                "rank": self.rank,
            }
            return episode_record(episode, turns, total_reward, done, training)

        file.append(build)


def weak_reference(value: Any) -> Any:
    """A callable giving `value` back without keeping it alive (the trainer holds the
    scheduler that holds this); None for None."""
    if value is None:
        return None
    try:
        return weakref.ref(value)
    except TypeError:
        return lambda: value


class TrajectoryFile:
    """One process's file under `directory`: opened at the first record, whole lines only."""

    def __init__(self, directory: str):
        self.directory = directory
        self.path: str | None = None
        self.failed = False
        self._fd: int | None = None
        self._size = 0
        self._sequence = 0
        self._lock = threading.Lock()  # async_generate plays episodes in a thread of its own

    def append(self, build: Any) -> None:
        """Write `build(sequence)` as one line; the first failure warns and ends all writing."""
        with self._lock:
            if self.failed:
                return
            try:
                if self._fd is None:
                    self._fd, self.path = open_exclusive(self.directory)
                line = encoded_line(build(self._sequence))
                self._write(line)
                self._sequence += 1
            except Exception as error:
                self.failed = True
                self.close()
                logger.warning(
                    "swift-gym: stopped writing training trajectories to %s (%s): %s; "
                    "training goes on without them",
                    self.path or self.directory,
                    VARIABLE,
                    _reason(error),
                )

    def _write(self, line: bytes) -> None:
        """One os.write; only after a short one (a disk filling up) the rest, and if that fails
        too, the part written is cut off, so the file keeps whole lines."""
        assert self._fd is not None
        written = 0
        try:
            while written < len(line):
                count = os.write(self._fd, line[written:])
                if count <= 0:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                written += count
        except OSError:
            if written:
                with contextlib.suppress(OSError):  # /dev/full, say, cannot be truncated
                    os.ftruncate(self._fd, self._size)
            raise
        self._size += written

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)


def encoded_line(record: dict[str, Any]) -> bytes:
    """`record` as one UTF-8 JSON line.

    msgspec (which ms-swift itself imports) encodes a record in about a tenth of the stdlib's
    time, which keeps the file's cost per episode a few percent of the scheduler's own; what it
    refuses (a lone surrogate from a model, a value JSON cannot hold) goes through
    `json_text.encode`, which always encodes. The scheduler's values are JSON-safe already (no
    NaN, str keys), so both write the same data.
    """
    encode = _fast_encoder()
    if encode is not None:
        try:
            return cast(bytes, encode(record)) + b"\n"
        except Exception:
            pass
    turns = record.get("turns")
    if isinstance(turns, list) and any(not isinstance(turn, dict) for turn in turns):
        record = {**record, "turns": [_decoded(turn) for turn in turns]}  # for json_text
    return json_text.encode(record) + b"\n"


def _decoded(turn: Any) -> Any:
    return turn if isinstance(turn, dict) else json.loads(bytes(turn))


@functools.lru_cache(maxsize=1)
def _fast_encoder() -> Any:
    try:
        import msgspec
    except ImportError:
        return None
    return msgspec.json.Encoder().encode


@functools.lru_cache(maxsize=1)
def _raw_type() -> Any:
    import msgspec

    return msgspec.Raw


def _raw(encoded: bytes) -> Any:
    return _raw_type()(encoded)


def _reason(error: Exception) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror  # the path is in the message already
    return f"{type(error).__name__}: {error}"[:300]


def open_exclusive(directory: str) -> tuple[int, str]:
    """A new file of this process's own under `directory` (made if missing): its fd and path."""
    try:
        os.makedirs(directory, exist_ok=True)
    except FileExistsError:  # a file has the name
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), directory) from None
    host = re.sub(r"[^A-Za-z0-9._-]", "_", socket.gethostname())[:64] or "host"
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    stem = os.path.join(directory, f"{host}-{os.getpid()}-{stamp}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
    for attempt in range(100):  # the same pid again within a second: a new name
        path = f"{stem}-{attempt}.jsonl" if attempt else f"{stem}.jsonl"
        try:
            return os.open(path, flags, 0o644), path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free file name", stem)


_files: dict[str, TrajectoryFile] = {}
_files_lock = threading.Lock()


def trajectory_file(directory: str) -> TrajectoryFile:
    """This process's file under `directory` (one per directory, shared by its schedulers)."""
    with _files_lock:
        file = _files.get(directory)
        if file is None:
            file = _files[directory] = TrajectoryFile(directory)
        return file


def _after_fork_in_child() -> None:
    """A forked child writes a file of its own: forget (and close) the parent's."""
    global _files_lock
    _files_lock = threading.Lock()
    for file in _files.values():
        file.close()
    _files.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
