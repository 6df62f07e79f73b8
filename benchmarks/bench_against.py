"""This tree's episode loops against another commit's: the same benchmarks, two trees, in turns.

`git worktree add /tmp/bench-base COMMIT`, then `python benchmarks/bench_against.py
--baseline-tree /tmp/bench-base` from an environment with torch, ms-swift 4.6, msgspec and the
env packages installed (their code is taken from each tree, not from the install). Each tree
gets a worker process of its own whose `PYTHONPATH` starts with that tree's `core/src` and
`plugins/*/src` (the start-up hook imports swift_gym from `sys.path`, so ms-swift's registries
are filled from that tree; checked); both workers run this tree's benchmark code, so the work
is the same on both sides. The driver asks the workers in turns, the order rotated each round,
and each ratio is the median of the rounds' ratios (this tree over the baseline tree), with
their range. Measures (each a function of the benchmark that owns it):

- the `swift_gym` scheduler: `bench_scheduler`'s trajectories through `scheduler.run` with
  swift-gym's FrozenLake (time per trajectory), and ms-swift's `gym_scheduler` on the same env
  (the env factory's share; its code is ms-swift's);
- a text turn and a tool turn through the `swift_gym` scheduler (`bench_tool_turns`, per turn);
- `swift_gym.evaluate` with the random and the oracle policy (`bench_eval_loop`, per episode);
- `swift-gym serve frozen_lake`, each tree's its own process: the raw client's step round trip
  one episode at a time (p50), and time per step with 16 sessions (`bench_remote`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench_timing import clean_environ, goal, interleaved, median, paired_ratio, write_json

HERE = Path(__file__).resolve().parent
GOAL = 1.05
"""'No slower than before', with room for the noise of two shared cores."""


def tree_path(tree: Path) -> str:
    """The `PYTHONPATH` that makes `tree`'s swift-gym and env packages the imported ones."""
    parts = [tree / "core" / "src", *sorted((tree / "plugins").glob("*/src"))]
    return os.pathsep.join(str(part) for part in parts)


class Worker:
    """A process that imports one tree's swift-gym and runs measures on request (JSON lines)."""

    def __init__(self, label: str, tree: Path):
        self.label, self.tree = label, tree.resolve()
        env = clean_environ(PYTHONPATH=tree_path(self.tree))
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        where = self.ask({"measure": "where"})
        if not str(where).startswith(str(self.tree)):
            raise RuntimeError(f"{label}: swift_gym imported from {where}, not {self.tree}")

    def ask(self, request: dict[str, Any]) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.label}'s worker exited (code {self.process.wait()})")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"{self.label}'s worker: {answer['error']}")
        return answer["value"]

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            self.process.wait(60)


class Measures:
    """The worker's side: workloads built on first use (before timing), then one run a call."""

    def __init__(self) -> None:
        self.cache: dict[Any, Any] = {}
        self.servers: list[Any] = []

    def once(self, key: Any, build: Any) -> Any:
        if key not in self.cache:
            self.cache[key] = build()
        return self.cache[key]

    def where(self) -> str:
        import swift_gym

        return str(Path(swift_gym.__file__).resolve())

    def scheduler(self, scheduler: str, trajectories: int, group: int) -> float:
        import bench_scheduler

        bench_scheduler.check_registries()
        work = self.once(
            ("scheduler", trajectories, group),
            lambda: bench_scheduler.Workload(trajectories, group),
        )
        return bench_scheduler.time_per_trajectory(work, scheduler, bench_scheduler.OURS)

    def turns(self, mode: str, trajectories: int, group: int) -> float:
        import bench_tool_turns

        work = self.once(
            ("turns", trajectories, group), lambda: bench_tool_turns.Workload(trajectories, group)
        )
        return bench_tool_turns.per_turn(work, mode)

    def evaluate(self, policy: str, episodes: int) -> float:
        import bench_eval_loop

        played = self.once("played", dict)
        return bench_eval_loop.per_episode("evaluate", policy, episodes, played)

    def _server(self) -> Any:
        import remote_servers

        def start() -> Any:
            server = remote_servers.start_ours("auto")
            self.servers.append(server)
            return server

        return self.once("server", start)

    def serve_latency(self, episodes: int) -> float:
        import bench_remote

        work = self.once(("serve", episodes), lambda: bench_remote.workload(episodes))
        times: list[float] = []
        bench_remote.latency_raw(self._server().ws_url)(work, times)
        return median(times)

    def serve_step(self, episodes: int, sessions: int) -> float:
        import bench_remote

        work = self.once(("serve", episodes), lambda: bench_remote.workload(episodes))
        steps_per_second, _ = bench_remote.throughput(self._server().ws_url, work, sessions)
        return 1 / steps_per_second

    def close(self) -> None:
        for server in self.servers:
            server.stop()


def serve_worker() -> None:
    """Answer the driver's requests on stdin until it closes it."""
    sys.path.insert(0, str(HERE))
    measures = Measures()
    reply = sys.stdout
    sys.stdout = sys.stderr  # anything the measures print stays out of the answers
    try:
        for line in sys.stdin:
            request = json.loads(line)
            name = request.pop("measure")
            try:
                answer = {"value": getattr(measures, name)(**request)}
            except Exception as error:  # the driver says which side failed, and why
                answer = {"error": f"{name}: {type(error).__name__}: {error}"}
            reply.write(json.dumps(answer) + "\n")
            reply.flush()
    finally:
        measures.close()


def measure(args: argparse.Namespace) -> dict[str, Any]:
    sides = {
        "current": Worker("this tree", args.tree),
        "baseline": Worker("baseline", args.baseline_tree),
    }
    cases = {
        "time per trajectory, swift_gym scheduler": (
            {"measure": "scheduler", "scheduler": "swift_gym"},
            {"trajectories": args.trajectories, "group": 8},
            "us",
        ),
        "time per trajectory, gym_scheduler (ms-swift's) with swift-gym's env": (
            {"measure": "scheduler", "scheduler": "gym_scheduler"},
            {"trajectories": args.trajectories, "group": 8},
            "us",
        ),
        "time per turn, text turn (swift_gym scheduler)": (
            {"measure": "turns", "mode": "tag"},
            {"trajectories": args.turn_trajectories, "group": 8},
            "us",
        ),
        "time per turn, tool turn (swift_gym scheduler)": (
            {"measure": "turns", "mode": "tool"},
            {"trajectories": args.turn_trajectories, "group": 8},
            "us",
        ),
        "time per episode, evaluate, random policy": (
            {"measure": "evaluate", "policy": "random"},
            {"episodes": args.episodes},
            "us",
        ),
        "time per episode, evaluate, oracle policy": (
            {"measure": "evaluate", "policy": "oracle"},
            {"episodes": args.episodes},
            "us",
        ),
        "step round trip p50, swift-gym serve, one episode at a time": (
            {"measure": "serve_latency"},
            {"episodes": args.serve_episodes},
            "us",
        ),
        "time per step, swift-gym serve, 16 sessions": (
            {"measure": "serve_step", "sessions": 16},
            {"episodes": args.throughput_episodes},
            "us",
        ),
    }
    rows, goals = [], []
    try:
        for name, (request, size, unit) in cases.items():
            if args.only and not any(word in name for word in args.only):
                continue
            print(f"{name} ...", file=sys.stderr, flush=True)
            runs = {
                side: (lambda w=worker, asked={**request, **size}: float(w.ask(asked)))
                for side, worker in sides.items()
            }
            times = interleaved(runs, args.repeats)
            rounds = [a / b for a, b in zip(times["current"], times["baseline"], strict=True)]
            ratio = paired_ratio(times["current"], times["baseline"])
            rows.append(
                {
                    "measure": name,
                    "ours": median(times["current"]) * 1e6,
                    "baseline": median(times["baseline"]) * 1e6,
                    "unit": unit,
                    "ratio": ratio,
                    "rounds": rounds,
                }
            )
            spread = f"{min(rounds):.2f} to {max(rounds):.2f}"
            goals.append(
                goal(
                    f"within {GOAL:g}x of the baseline tree: {name}",
                    f"{ratio:.2f}x ({spread})",
                    ratio <= GOAL,
                )
            )
            print(f"  {ratio:.3f}x (rounds {spread})", file=sys.stderr, flush=True)
    finally:
        for worker in sides.values():
            worker.close()
    return {
        "benchmark": f"{args.tree} against {args.baseline_tree}",
        "repeats": args.repeats,
        "detail": (
            f"each measure {args.repeats} times per tree after one warm-up, the trees in turns "
            f"(order rotated); ratio: median of the rounds' ratios (this tree / baseline tree), "
            f"their range in the goal's column. Sizes: {args.trajectories} scheduler "
            f"trajectories, {args.turn_trajectories} for the turns, {args.episodes} evaluate "
            f"episodes, serve latency {args.serve_episodes} episodes, 16 sessions "
            f"{args.throughput_episodes} episodes"
        ),
        "rows": rows,
        "goals": goals,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--baseline-tree", type=Path, help="a worktree of the baseline commit")
    parser.add_argument(
        "--tree", type=Path, default=HERE.parent, help="the tree measured (default: this one)"
    )
    parser.add_argument("--trajectories", type=int, default=10_000)
    parser.add_argument("--turn-trajectories", type=int, default=4000)
    parser.add_argument("--episodes", type=int, default=2000)
    parser.add_argument("--serve-episodes", type=int, default=200)
    parser.add_argument("--throughput-episodes", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--only", nargs="*", help="measures whose name holds one of these words")
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.worker:
        serve_worker()
        return
    if args.baseline_tree is None:
        parser.error("--baseline-tree is required")
    write_json(args.json, measure(args))


if __name__ == "__main__":
    main()
