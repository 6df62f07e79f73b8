"""One cluster (a head without CPUs, two worker nodes of 2 CPUs), three runs on it; prints what
happened as JSON for test_ray_placement.py to check (run through `netns.run`).

1. `swift-gym eval frozen_lake --policy oracle -n 200` with SWIFT_GYM_RAY_ADDRESS set.
2. `swift_gym.evaluate` with one episode per actor and 12 at once: more than the 4 CPUs hold.
3. A worker node killed while episodes are under way; a node added after it.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from local_cluster import cluster, live_actors, wait_no_actors

BIN = Path(sys.executable).parent


def where_played(record: dict[str, Any]) -> list[dict[str, Any]]:
    places = [(record.get("reset_info") or {}).get("ray")]  # None: ended before its reset
    places += [(turn.get("info") or {}).get("ray") for turn in record.get("turns", [])]
    return places


def summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "episodes": len(records),
        "statuses": sorted({str(r["status"]) for r in records}),
        "successes": sum(bool(r["success"]) for r in records),
        "errors": [r["error"] for r in records if r["status"] == "error"],
        "error_indices": [r["index"] for r in records if r["status"] == "error"],
        "places": [where_played(r) for r in records],
    }


def cli_run(address: str, work: Path) -> dict[str, Any]:
    output = work / "eval.jsonl"
    env = {**os.environ, "SWIFT_GYM_RAY_ADDRESS": address}
    command = [str(BIN / "swift-gym"), "eval", "frozen_lake", "--policy", "oracle", "-n", "200"]
    process = subprocess.Popen(
        [*command, "--output", str(output)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = process.communicate(timeout=300)
    lines = output.read_text().splitlines() if output.exists() else []
    records = [json.loads(line) for line in lines]
    return {
        "returncode": process.returncode,
        "pid": process.pid,
        "stdout": out[-2000:],
        "stderr": err[-2000:],
        **summary(records),
    }


def library_run(address: str, concurrency: int, episodes: int, **options: Any) -> dict[str, Any]:
    import swift_gym

    result = swift_gym.evaluate(
        "frozen_lake",
        "oracle",
        episodes=episodes,
        concurrency=concurrency,
        ray_address=address,
        **options,
    )
    return summary(result.records)


async def kill_mid_run(started: Any, address: str, victim: Any, work: Path) -> dict[str, Any]:
    """Episodes that each take a while (the policy waits), a node killed among them."""
    import swift_gym

    async def slow_oracle(messages: Any, env: Any) -> Any:
        await asyncio.sleep(0.05)
        return await env.oracle_reply_async()

    run = asyncio.ensure_future(
        swift_gym.evaluate_async(
            {"name": "frozen_lake", "size": 8},
            slow_oracle,
            episodes=80,
            concurrency=8,
            ray_address=address,
            output=work / "kill.jsonl",
        )
    )
    while not run.done() and _lines(work / "kill.jsonl") < 16:  # under way on both nodes
        await asyncio.sleep(0.1)
    before = live_actors()
    started.remove_node(victim, allow_graceful=False)
    killed_at = time.time()
    result = await run
    return {
        "actors_before_kill": [
            {"node_id": a.get("Address", {}).get("NodeID"), "pid": a.get("Pid")} for a in before
        ],
        "seconds_after_kill": time.time() - killed_at,
        **summary(result.records),
    }


def note(text: str) -> None:
    print(f"[scenarios {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def main() -> None:
    report: dict[str, Any] = {"script_pid": os.getpid()}
    with cluster(workers=2, cpus=2) as started, tempfile.TemporaryDirectory() as work:
        import ray

        address = started.address
        report["head"] = started.head_node.node_id
        workers = [node for node in started.worker_nodes]
        report["workers"] = [node.node_id for node in workers]
        ray.init(address=address, log_to_driver=False)

        note('report["cli"]')
        report["cli"] = cli_run(address, Path(work))
        report["actors_after_cli"] = len(wait_no_actors())

        os.environ["SWIFT_GYM_RAY_ENVS"] = json.dumps({"frozen_lake": {"episodes": 1}})
        note('report["backpressure"]')
        report["backpressure"] = library_run(address, concurrency=12, episodes=40)
        report["actors_after_backpressure"] = len(wait_no_actors())

        os.environ["SWIFT_GYM_RAY_ENVS"] = json.dumps({"frozen_lake": {"resources": {"GPU": 1}}})
        note("infeasible")
        try:
            library_run(address, concurrency=2, episodes=2)
        except Exception as error:
            report["infeasible"] = f"{type(error).__name__}: {error}"
        report["actors_after_infeasible"] = len(wait_no_actors())

        os.environ["SWIFT_GYM_RAY_ENVS"] = json.dumps({"frozen_lake": {"episodes": 2}})
        report["killed_node"] = workers[1].node_id
        note('report["kill"]')
        report["kill"] = asyncio.run(kill_mid_run(started, address, workers[1], Path(work)))
        report["actors_after_kill"] = len(wait_no_actors())
        note("ray.shutdown()")
        ray.shutdown()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
