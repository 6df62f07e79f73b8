"""Plays one attack on the sandbox, as the user that runs it, and prints what happened as JSON.

The host side of `test_sandbox_bounds.py`'s attacks, run as a process of its own so that the
same attack runs as root (with and without cgroups) and as an unprivileged user (started with
`setpriv` from a venv that user can read). Reads a scenario on stdin:

    {"limits": {...SandboxLimits...}, "steps": [{"call": CODE}, {"idle": SECONDS}, {"run": CODE}]}

`call` runs in one `Session`, `run` in a one-shot sandbox; `idle` waits with the session between
calls and measures the CPU seconds its sandbox's processes and this process used meanwhile.
Prints {"mode": ..., "results": [...]}, one result per step.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import resource
import sys

from swift_gym.sandbox import SandboxLimits, Session, run
from swift_gym.sandbox.bounds import bounds
from swift_gym.sandbox.stopping import tree

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(init_pid: int) -> float:
    """CPU time used so far by every thread of every process below `init_pid`."""
    total = 0
    for pid in tree(init_pid):
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for thread in threads:
            try:
                with open(f"/proc/{pid}/task/{thread}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICKS


def own_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


async def main() -> None:
    scenario = json.load(sys.stdin)
    limits = SandboxLimits(**scenario.get("limits", {}))
    results = []
    session = Session(limits)
    try:
        for step in scenario["steps"]:
            if "call" in step:
                results.append(dataclasses.asdict(await session.call(step["call"])))
            elif "run" in step:
                results.append(dataclasses.asdict(await run(step["run"], limits)))
            else:
                sandbox = session._sandbox
                init = sandbox.init_pid if sandbox is not None else None
                before, host_before = cpu_seconds(init) if init else 0.0, own_cpu()
                await asyncio.sleep(step["idle"])
                after, host_after = cpu_seconds(init) if init else 0.0, own_cpu()
                used = {"sandbox_cpu": after - before, "host_cpu": host_after - host_before}
                results.append(used)
    finally:
        await session.close()
    print(json.dumps({"mode": bounds().mode, "uid": os.geteuid(), "results": results}))


asyncio.run(main())
