"""Envs on a Ray cluster: the cost of a step's round trip, and how throughput grows with nodes.

Every cluster runs on this machine inside a network namespace of its own with only loopback up
(the script re-runs itself under `unshare -n`: Ray 2.60 binds the machine's non-loopback
address otherwise; needs root), with a head that holds no CPUs, so every actor is on a worker.

1. Overhead: one FrozenLake episode at a time, the same replies, each `step` timed in process
   and then through a `RayEnv` (a remote call to the actor and back), on one worker node.
   Goal: the Ray step's p50 overhead under 2 ms.
2. Scaling: `bench_wait`, an env generated here (a distribution on PYTHONPATH, as pip would
   leave it) whose step waits 20 ms, as a sandbox call does, and which declares one CPU
   (`ray_resources`), so a node of 4 CPUs holds 4 of its actors. On clusters of 1, 2 and 4 such
   nodes, as many episode loops as the cluster has CPUs each play `--steps-per-slot` steps
   (10 a episode); steps/s is the median over `--repeats` rounds (a round before them warms
   the actors). Goal: N nodes within 15% of N times one node. Baseline: the same loops through
   the `openenv` env against N `swift-gym serve bench_wait` processes on 127.0.0.1, their URLs
   one pool (`base_url` a list): what an operator builds by hand instead.

The driver, the nodes and the servers share this machine's cores: the scaling here is of a
workload that waits, which is what Ray placement is for (a step that computes scales with real
machines' cores, not with nodes simulated on one).

Usage: `python benchmarks/bench_ray.py [--steps 2000] [--nodes 1 2 4] [--json out.json]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_timing import goal, ratio_row, write_json

OVERHEAD_GOAL_MS = 2.0
LINEAR_SHARE = 0.85
"""N nodes' steps/s at least this share of N times one node's."""
CPUS_PER_NODE = 4
STEPS_PER_EPISODE = 10
WAIT_S = 0.02
INSIDE = "SWIFT_GYM_BENCH_RAY_INSIDE"
WHY_SCALING = (
    "every node, its actors, the driver and the servers share this machine's 2 cores: each "
    "step's remote call costs CPU in the driver, the actor and the raylets, and more nodes "
    "add more of those processes to the same cores"
)

WAIT_MODULE = f'''"""The Ray benchmark's env: each step waits {WAIT_S * 1000:g} ms."""

import asyncio

import swift_gym


class WaitEnv(swift_gym.Env):
    never_blocks = True
    ray_resources = {{"CPU": 1}}

    async def reset(self, request=None):
        self.turns = 0
        return "wait", {{}}, ""

    async def step(self, messages):
        await asyncio.sleep({WAIT_S})
        self.turns += 1
        return "waited", 0.0, self.turns >= {STEPS_PER_EPISODE}, {{}}
'''


def write_wait_dist(root: Path) -> Path:
    """The `bench-wait` distribution (entry point `bench_wait`) in `root`, for PYTHONPATH."""
    info = root / "bench_wait-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: bench-wait\nVersion: 1.0\n"
        "Summary: the swift-gym Ray benchmark's waiting env\n"
    )
    (info / "entry_points.txt").write_text("[swift_gym.envs]\nbench_wait = bench_wait:WaitEnv\n")
    (info / "INSTALLER").write_text("pip\n")
    (info / "RECORD").write_text("")
    (root / "bench_wait.py").write_text(WAIT_MODULE)
    return root


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


async def overhead(address: str, steps: int) -> dict[str, float]:
    """p50 and p95 of a FrozenLake step, in ms: in process, and on Ray."""
    import swift_gym
    from swift_gym.placement.ray.cluster import RayPlacement

    config = {"name": "frozen_lake", "size": 8, "seed": 1}
    local = swift_gym.make(config)
    await timed_steps(local, 200)  # warm
    in_process = sorted(await timed_steps(local, steps))
    placement = RayPlacement(address)
    placement.connect()
    try:
        remote = await placement.open("frozen_lake", config)
        await timed_steps(remote, 200)  # warm: the actor's imports, the connection
        on_ray = sorted(await timed_steps(remote, steps))
        await remote.close()
    finally:
        placement.shutdown()
    return {
        "local_p50": 1000 * statistics.median(in_process),
        "ray_p50": 1000 * statistics.median(on_ray),
        "ray_p95": 1000 * on_ray[int(0.95 * (len(on_ray) - 1))],
    }


async def slot(open_env: Any, steps: int) -> int:
    """One episode loop: whole episodes of `bench_wait` until `steps` steps are played."""
    played = 0
    message = [{"role": "assistant", "content": "go"}]
    while played < steps:
        env = await open_env()
        try:
            await env.reset()
            done = False
            while not done:
                _, _, done, _ = await env.step(message)
                played += 1
        finally:
            await env.close()
    return played


async def rate(open_env: Any, slots: int, steps: int) -> float:
    """Steps/s of `slots` loops at once, each playing `steps` steps."""
    started = time.perf_counter()
    played = await asyncio.gather(*(slot(open_env, steps) for _ in range(slots)))
    return sum(played) / (time.perf_counter() - started)


async def ray_rates(address: str, slots: int, steps: int, repeats: int) -> list[float]:
    from swift_gym.placement.ray.cluster import RayPlacement

    placement = RayPlacement(address)
    placement.connect()
    try:

        async def open_env() -> Any:
            return await placement.open("bench_wait", {})

        await rate(open_env, slots, STEPS_PER_EPISODE)  # warm: every actor started
        return [await rate(open_env, slots, steps) for _ in range(repeats)]
    finally:
        placement.shutdown()


async def serve_rates(urls: list[str], slots: int, steps: int, repeats: int) -> list[float]:
    import swift_gym

    config = {"name": "openenv", "base_url": urls, "env_config": {"name": "bench_wait"}}

    async def open_env() -> Any:
        return swift_gym.make(config)

    await rate(open_env, slots, STEPS_PER_EPISODE)  # warm: the connections' first handshakes
    return [await rate(open_env, slots, steps) for _ in range(repeats)]


def scaling(nodes: int, steps: int, repeats: int) -> dict[str, list[float]]:
    """Steps/s rounds of `bench_wait` on Ray with `nodes` worker nodes, and on as many servers."""
    from ray.cluster_utils import Cluster
    from remote_servers import start_ours

    slots = nodes * CPUS_PER_NODE
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    try:
        for _ in range(nodes):
            cluster.add_node(num_cpus=CPUS_PER_NODE)
        cluster.wait_for_nodes()
        on_ray = asyncio.run(ray_rates(cluster.address, slots, steps, repeats))
    finally:
        import ray

        ray.shutdown()
        cluster.shutdown()
    servers = [start_ours(env="bench_wait") for _ in range(nodes)]
    try:
        served = asyncio.run(serve_rates([s.url for s in servers], slots, steps, repeats))
    finally:
        for server in servers:
            server.stop()
    return {"ray": on_ray, "serve": served}


def inside(steps: int, nodes: list[int], steps_per_slot: int, repeats: int) -> dict[str, Any]:
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    try:
        cluster.add_node(num_cpus=2)
        cluster.wait_for_nodes()
        cost = asyncio.run(overhead(cluster.address, steps))
    finally:
        import ray

        ray.shutdown()
        cluster.shutdown()
    return {
        "overhead": cost,
        "scaling": {str(n): scaling(n, steps_per_slot, repeats) for n in nodes},
    }


def result(raw: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """The benchmark's rows and goals for run.py, from the namespace's raw measurements."""
    cost = raw["overhead"]
    extra = cost["ray_p50"] - cost["local_p50"]
    rows = [ratio_row("FrozenLake step p50: on Ray vs in process", cost["ray_p50"],
                      cost["local_p50"], "ms")]  # fmt: skip
    goals = [goal(f"Ray step overhead p50 < {OVERHEAD_GOAL_MS:g} ms",
                  f"{extra:.3f} ms (p50 {cost['ray_p50']:.3f} ms on Ray, "
                  f"{cost['local_p50']:.3f} ms in process; p95 {cost['ray_p95']:.3f} ms)",
                  extra < OVERHEAD_GOAL_MS)]  # fmt: skip
    medians = {
        n: {side: statistics.median(rounds) for side, rounds in by_side.items()}
        for n, by_side in raw["scaling"].items()
    }
    one = medians.get("1")
    for n, rates in medians.items():
        rows.append(ratio_row(f"bench_wait steps/s, {n} node(s) of {CPUS_PER_NODE} CPUs: Ray vs "
                              f"{n} swift-gym serve in a URL pool", rates["ray"], rates["serve"],
                              "/s"))  # fmt: skip
        if one and n != "1":
            share = rates["ray"] / (int(n) * one["ray"])
            goals.append(goal(f"{n} nodes within {100 - 100 * LINEAR_SHARE:.0f}% of linear (Ray)",
                              f"{share:.2f} of {n}x one node ({rates['ray']:,.0f} vs "
                              f"{int(n) * one['ray']:,.0f} steps/s)",
                              share >= LINEAR_SHARE, WHY_SCALING))  # fmt: skip
    return {
        "benchmark": "Envs on a Ray cluster (SWIFT_GYM_RAY_ADDRESS)",
        "repeats": args.repeats,
        "detail": f"Ray 2.60 clusters on this machine (a head without CPUs, worker nodes); "
        f"overhead: {args.steps} FrozenLake steps one at a time, p50; scaling: bench_wait (a step "
        f"that waits {WAIT_S * 1000:g} ms, one CPU an actor), {CPUS_PER_NODE} loops a node, "
        f"{args.steps_per_slot} steps each, median of {args.repeats} rounds; baseline: the "
        "same loops through the openenv env to as many swift-gym serve processes as nodes",
        "rows": rows,
        "goals": goals,
        "raw": raw,
    }


def unusable() -> str | None:
    """Why the clusters cannot run here, or None."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return "ray is not installed here (pip install './core[ray]' in a clone)"
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip"):
        return "needs root, unshare and ip, for a network namespace of its own"
    return None


def not_measured(why: str) -> dict[str, Any]:
    return {
        "benchmark": "Envs on a Ray cluster (SWIFT_GYM_RAY_ADDRESS)",
        "detail": f"not run: {why}",
        "rows": [],
        "goals": [
            goal(f"Ray step overhead p50 < {OVERHEAD_GOAL_MS:g} ms", "not measured", False, why)
        ],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="overhead: steps timed")
    parser.add_argument("--nodes", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--steps-per-slot", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    if os.environ.get(INSIDE):
        print(json.dumps(inside(args.steps, args.nodes, args.steps_per_slot, args.repeats)))
        return 0
    why = unusable()
    if why:
        write_json(args.json, not_measured(why))
        return 0
    me = Path(__file__).resolve()
    flags = [f"--steps {args.steps}", f"--steps-per-slot {args.steps_per_slot}",
             f"--repeats {args.repeats}", "--nodes " + " ".join(map(str, args.nodes))]  # fmt: skip
    command = f"ip link set lo up && exec {sys.executable} {me} {' '.join(flags)}"
    with tempfile.TemporaryDirectory() as tmp:
        dists = write_wait_dist(Path(tmp) / "dists")
        path = os.pathsep.join(filter(None, [str(dists), os.environ.get("PYTHONPATH")]))
        environ = {**os.environ, INSIDE: "1", "RAY_USAGE_STATS_ENABLED": "0", "PYTHONPATH": path}
        environ = {k: v for k, v in environ.items() if k != "SWIFT_GYM_RAY_ADDRESS"}
        done = subprocess.run(
            ["unshare", "-n", "sh", "-c", command], capture_output=True, text=True, env=environ
        )
    if done.returncode:
        print(done.stderr[-3000:], file=sys.stderr)
        return done.returncode
    write_json(args.json, result(json.loads(done.stdout.strip().splitlines()[-1]), args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
