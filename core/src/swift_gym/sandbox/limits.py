"""`SandboxLimits`: what one run or session may use. The operator's choice, never a row's.

Each limit is enforced by the kernel or by the host, never by code inside the sandbox alone:
wall time by the host (it kills the whole sandbox), CPU time, memory, processes, open files and
file size by rlimits set before any code runs (memory and processes also by the sandbox's
cgroups where the host gives them: `bounds.py`), the work directory by the size of its tmpfs,
and output by the host reading at most `output_bytes` (and the session's server keeping at
most that).
Envs whose configs come from rows read theirs from the operator's `SWIFT_GYM_SANDBOX_LIMITS`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

MiB = 1024 * 1024

Backend = Literal["bubblewrap", "unsafe_local"]
"""`bubblewrap` isolates (the default); `unsafe_local` runs the code as a plain child process
with the same limits but no isolation at all: only for code you trust, on purpose."""


class SandboxLimits(BaseModel):
    """Limits of one run, or of each call of a session (wall and CPU time are per call)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)

    wall_seconds: float = Field(
        10.0, gt=0, le=3600, description="Wall time of a run or a call; past it, all is killed."
    )
    cpu_seconds: float = Field(
        10.0, gt=0, le=3600, description="CPU time of a run or a call (RLIMIT_CPU, per process)."
    )
    session_cpu_seconds: float = Field(
        600.0, gt=0, le=86_400, description="CPU time of a whole session's server, all calls."
    )
    memory_bytes: int = Field(
        512 * MiB,
        ge=64 * MiB,
        le=2**40,
        description="Address space per process (RLIMIT_AS); with cgroups, this plus work_bytes "
        "for the whole sandbox.",
    )
    max_processes: int = Field(
        16,
        ge=1,
        le=4096,
        description="Processes and threads at once (a pids cgroup, else RLIMIT_NPROC).",
    )
    max_open_files: int = Field(64, ge=16, le=65_536, description="Open files per process.")
    work_bytes: int = Field(
        64 * MiB, ge=MiB, le=2**40, description="Size of the private work directory (tmpfs)."
    )
    output_bytes: int = Field(
        64 * 1024, ge=1024, le=64 * MiB, description="stdout and stderr kept, each; more is cut."
    )
    backend: Backend = Field("bubblewrap", description="How code is isolated.")


LIMITS_VARIABLE = "SWIFT_GYM_SANDBOX_LIMITS"
"""The operator's limits for envs that offer the `python` tool: a JSON object of `SandboxLimits`
fields (`{"wall_seconds": 5, "memory_bytes": 268435456}`); unset or empty, the defaults."""


def operator_limits(environ: Mapping[str, str] | None = None) -> SandboxLimits:
    """The limits the operator set in `SWIFT_GYM_SANDBOX_LIMITS` (else the defaults).

    For envs whose configs come from dataset rows: a row chooses whether an episode offers
    `python`, never how much it may use. Raises ValueError naming the variable when its value
    is not a JSON object of valid fields (the operator's mistake, told before anything runs).
    """
    raw = (os.environ if environ is None else environ).get(LIMITS_VARIABLE, "").strip()
    return _parsed(raw)


@functools.lru_cache(maxsize=8)
def _parsed(raw: str) -> SandboxLimits:
    if not raw:
        return SandboxLimits()
    try:
        return SandboxLimits.model_validate_json(raw)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'the value'}: {e['msg']}" for e in error.errors()
        )
        raise ValueError(
            f"{LIMITS_VARIABLE} must be a JSON object of SandboxLimits fields ({problems}); "
            f"got {raw[:200]!r}"
        ) from None
