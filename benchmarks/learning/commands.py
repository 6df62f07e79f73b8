"""Run the pipeline's real commands as subprocesses, and keep what was run and how long it took.

Every stage is a command a user would type (`swift-gym dataset/eval/export/report`,
`swift sft`, `swift rlhf`, or this directory's scripts), run with the same Python environment
as the runner. Each one is kept as typed, with the work directory written `$WORK`, so
LEARNING.md can list the exact commands of the run.
"""

from __future__ import annotations

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
    """Runs commands in `work` with `threads` CPU threads; `log` keeps (stage, command, s)."""

    work: Path
    threads: int
    log: list[tuple[str, str, float]] = field(default_factory=list)

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
        logs = self.work / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        log_path = logs / f"{stage}.log"
        started = time.perf_counter()
        shown = self.shown(command, extra_env)
        with log_path.open("a") as log:
            log.write(f"$ {shown}\n")
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
        return seconds

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
