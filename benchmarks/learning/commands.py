"""Run the pipeline's real commands as subprocesses, and keep what was run and how long it took.

Every stage is a command a user would type (`swift-gym dataset/eval/export/report`,
`swift sft`, `swift rlhf`, or this directory's scripts), run with the same Python environment
as the runner. Each one is kept as typed, with the work directory written `$WORK`, so
LEARNING.md can list the exact commands of the run.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
PINNED = {
    "PYTHONHASHSEED": "0",
    "MKL_CBWR": "AVX2",
    "ATEN_CPU_CAPABILITY": "avx2",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
}
"""What each command's numerics may not take from the machine: set orders, and which vector
instructions torch's own kernels (ATen), MKL's BLAS and oneDNN use. By default each picks the
widest the CPU has (AVX-512 on this one), and those sum in another order: one 10-step training
probe of the model here ended with other weights under AVX-512 than under AVX2, at about the
same speed. Pinned to AVX2, any x86-64 CPU of the last decade runs the same kernels. The thread
count is pinned beside them (OMP_NUM_THREADS): threads split sums too."""


@dataclass
class Commands:
    """Runs commands in `work` with `threads` CPU threads; `log` keeps (stage, command, s).
    With `done` (a directory), each stage whose command succeeded is kept there and not run
    again (its command and seconds are logged as they were): a run cut off (a session's end,
    Ctrl-C) goes on after the last command that finished. The caller keeps one `done` per
    set of settings (run.py: a unit's dir, started again when they change)."""

    work: Path
    threads: int
    log: list[tuple[str, str, float]] = field(default_factory=list)
    done: Path | None = None

    def bin(self, name: str) -> str:
        """A command installed beside this Python (`swift`, `swift-gym`)."""
        return str(Path(sys.executable).with_name(name))

    def script(self, name: str) -> list[str]:
        return [sys.executable, str(HERE / name)]

    def environ(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
        env.update(
            OMP_NUM_THREADS=str(self.threads),
            MKL_NUM_THREADS=str(self.threads),
            HF_HUB_OFFLINE="1",
            HF_DATASETS_OFFLINE="1",
            TOKENIZERS_PARALLELISM="false",
            TRL_EXPERIMENTAL_SILENCE="1",
            **PINNED,
        )
        env.update(extra or {})
        return env

    def run(self, stage: str, command: list[str], extra_env: dict[str, str] | None = None) -> float:
        """Run `command`; its output goes to work/logs/<stage>.log. Returns the wall seconds;
        raises with the log's tail if it fails."""
        before = self.finished(stage)
        if before is not None:
            self.log.append((stage, before["command"], before["seconds"]))
            return before["seconds"]
        log_path = self.log_path(stage)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        shown = self.shown(command, extra_env)
        started = time.perf_counter()
        with log_path.open("a") as log:
            # a run killed mid-line (a progress bar ends in \r) leaves no newline: the command
            # line must start a line, as `earlier_seconds` finds each run by it
            log.write(f"{'' if ends_a_line(log_path) else chr(10)}$ {shown}\n")
            log.flush()
            result = subprocess.run(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=self.environ(extra_env),
                cwd=self.work,
            )
        seconds = time.perf_counter() - started
        self.log.append((stage, shown, seconds))
        if result.returncode != 0:
            tail = log_path.read_text(errors="replace")[-3000:]
            raise RuntimeError(f"{stage} failed ({result.returncode}): {tail}")
        if self.done is not None:
            self.done.mkdir(parents=True, exist_ok=True)
            record = {"command": shown, "seconds": seconds}
            (self.done / f"{stage}.json").write_text(json.dumps(record))
        return seconds

    def log_path(self, stage: str) -> Path:
        """work/logs/<stage>.log: every run of the stage's command, each after its `$ ` line."""
        return self.work / "logs" / f"{stage}.log"

    def finished(self, stage: str) -> dict | None:
        """The kept record of `stage` (`command`, `seconds`) if its command succeeded."""
        return _read_record(self.done / f"{stage}.json" if self.done else None)

    def shown(self, command: list[str], extra_env: dict[str, str] | None) -> str:
        """The command as a user would type it: paths under `work` as $WORK, this directory's
        scripts relative to the repository, installed commands by name."""
        words = []
        for word in command:
            if word == sys.executable:
                word = "python"
            elif word.startswith(str(Path(sys.executable).parent) + os.sep):
                word = Path(word).name
            word = word.replace(str(HERE), "benchmarks/learning").replace(str(self.work), "$WORK")
            words.append(word)
        prefix = "".join(
            f"{k}={quote(v.replace(str(self.work), '$WORK'))} "
            for k, v in (extra_env or {}).items()
        )
        return prefix + " ".join(map(quote, words))


def quote(word: str) -> str:
    """Shell-quote `word`, leaving $WORK paths readable (and expandable)."""
    return word if re.fullmatch(r"[\w@%+=:,./$-]+", word) else shlex.quote(word)


def _read_record(path: Path | None) -> dict | None:
    """A finished command's record, or None (none kept, or not one this code wrote)."""
    if path is None or not path.is_file():
        return None
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    ok = (
        isinstance(record, dict)
        and isinstance(record.get("seconds"), (int, float))
        and isinstance(record.get("command"), str)
    )
    return record if ok else None


def ends_a_line(path: Path) -> bool:
    """Whether the file is empty or ends in a newline."""
    with path.open("rb") as file:
        if file.seek(0, 2) == 0:
            return True
        file.seek(-1, 2)
        return file.read(1) == b"\n"
