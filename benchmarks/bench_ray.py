"""Per-step overhead of a Ray-placed FrozenLake against the same env in process.

A cluster of one head (no CPUs) and one worker node starts on this machine, inside a network
namespace of its own with only loopback up (the script re-runs itself under `unshare -n`: Ray
2.60 binds the machine's non-loopback address otherwise; needs root). One episode at a time,
the same replies: each `step` timed in process, then through a `RayEnv` (a remote call to the
actor and back). Goal: the Ray step's p50 overhead under 2 ms.

Usage: `python benchmarks/bench_ray.py [--steps 2000] [--json out.json]`. Not in run.py yet.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

GOAL_MS = 2.0
INSIDE = "SWIFT_GYM_BENCH_RAY_INSIDE"


async def timed_steps(env: Any, steps: int) -> list[float]:
    """Seconds per step over `steps` steps, replaying episodes of `env` (reset untimed)."""
    times: list[float] = []
    await env.reset()
    moves = ["<action>left</action>", "<action>right</action>"]
    while len(times) < steps:
        messages = [{"role": "assistant", "content": moves[len(times) % 2]}]
        start = time.perf_counter()
        _, _, done, _ = await env.step(messages)
        times.append(time.perf_counter() - start)
        if done:
            await env.reset()
    return times


def quantiles_ms(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "p50": 1000 * statistics.median(ordered),
        "p95": 1000 * ordered[int(0.95 * (len(ordered) - 1))],
    }


async def measure(address: str, steps: int) -> dict[str, Any]:
    import swift_gym
    from swift_gym.ray.placement import RayPlacement

    config = {"name": "frozen_lake", "size": 8, "seed": 1}
    local = swift_gym.make(config)
    await timed_steps(local, 200)  # warm
    in_process = quantiles_ms(await timed_steps(local, steps))
    placement = RayPlacement(address)
    placement.connect()
    try:
        remote = await placement.open("frozen_lake", config)
        await timed_steps(remote, 200)  # warm: the actor's imports, the connection
        on_ray = quantiles_ms(await timed_steps(remote, steps))
        await remote.close()
    finally:
        placement.shutdown()
    overhead = on_ray["p50"] - in_process["p50"]
    return {
        "name": "bench_ray.py",
        "steps": steps,
        "in_process_ms": in_process,
        "ray_ms": on_ray,
        "overhead_p50_ms": overhead,
        "goal": f"Ray step overhead p50 < {GOAL_MS} ms",
        "met": overhead < GOAL_MS,
    }


def inside(steps: int) -> dict[str, Any]:
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    try:
        cluster.add_node(num_cpus=2)
        cluster.wait_for_nodes()
        return asyncio.run(measure(cluster.address, steps))
    finally:
        import ray

        ray.shutdown()
        cluster.shutdown()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if os.environ.get(INSIDE):
        print(json.dumps(inside(args.steps)))
        return 0
    me = Path(__file__).resolve()
    command = f"ip link set lo up && exec {sys.executable} {me} --steps {args.steps}"
    result = subprocess.run(
        ["unshare", "-n", "sh", "-c", command],
        capture_output=True,
        text=True,
        env={**os.environ, INSIDE: "1", "RAY_USAGE_STATS_ENABLED": "0"},
    )
    if result.returncode:
        print(result.stderr[-3000:], file=sys.stderr)
        return result.returncode
    report = json.loads(result.stdout.strip().splitlines()[-1])
    ours, base = report["ray_ms"], report["in_process_ms"]
    print(
        f"FrozenLake step, {report['steps']} steps: in process p50 {base['p50']:.3f} ms "
        f"(p95 {base['p95']:.3f}); on Ray p50 {ours['p50']:.3f} ms (p95 {ours['p95']:.3f}); "
        f"overhead p50 {report['overhead_p50_ms']:.3f} ms (goal < {GOAL_MS} ms: "
        f"{'met' if report['met'] else 'missed'})"
    )
    if args.json:
        args.json.write_text(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
