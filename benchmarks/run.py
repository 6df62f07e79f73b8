"""Runs every benchmark, each in its own process, and writes the results to a Markdown file.

Usage: `python benchmarks/run.py --output benchmarks/RESULTS.md` in an environment with torch,
ms-swift 4.6, msgspec, swift-gym and all four env packages installed for real (what `tox -e
bench` builds). `--quick` runs each benchmark small, to check the machinery in a minute. Missed
goals are reported, not failed: the exit code is non-zero only when a benchmark could not run.
"""

from __future__ import annotations

import argparse
import datetime
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_report

HERE = Path(__file__).resolve().parent
BENCHMARKS = {
    "bench_startup.py": (["--runs", "200"], ["--runs", "20"]),
    "bench_discovery.py": (["--runs", "15"], ["--runs", "3"]),
    "bench_many_envs.py": (["--runs", "5"], ["--runs", "1"]),
    "bench_env_speed.py": (
        ["--episodes", "3000", "--repeats", "9"],
        ["--episodes", "300", "--repeats", "3"],
    ),
    # swift_gym.evaluate's episode loop (as `swift-gym eval -o`) against the same episodes by hand
    "bench_eval_loop.py": (
        ["--episodes", "2000", "--repeats", "5"],
        ["--episodes", "100", "--repeats", "1"],
    ),
    "bench_scheduler.py": (
        ["--trajectories", "10000", "--repeats", "5", "--memory-repeats", "3"],
        ["--trajectories", "500", "--repeats", "1", "--memory-repeats", "1"],
    ),
    # the scheduler's check that each next prompt fits the engine, against the engine's encoding
    "bench_context_room.py": (
        ["--trajectories", "2000", "--repeats", "5"],
        ["--trajectories", "100", "--repeats", "1"],
    ),
    "bench_tools.py": (
        ["--calls", "20000", "--repeats", "9"],
        ["--calls", "200", "--repeats", "1"],
    ),
    # the sandbox: a one-shot run and a warm session against the same interpreter unsandboxed
    "bench_sandbox.py": (
        ["--runs", "60", "--calls", "500", "--sessions", "64"],
        ["--runs", "3", "--calls", "20", "--sessions", "4"],
    ),
    # the workspace: its set-up from a 1 MB tree, a warm bash call, a test run, against bare
    "bench_workspace.py": (
        ["--rounds", "30", "--calls", "200", "--test-rounds", "5"],
        ["--rounds", "2", "--calls", "10", "--test-rounds", "1"],
    ),
    # code.repair: 16 oracle episodes at once against one at a time, none may fail
    "bench_repair.py": (
        ["--episodes", "16", "--concurrency", "16", "--repeats", "3"],
        ["--episodes", "4", "--concurrency", "4", "--repeats", "1"],
    ),
    "bench_tool_turns.py": (
        ["--trajectories", "4000", "--repeats", "7"],
        ["--trajectories", "200", "--repeats", "1"],
    ),
    # an AgentEnv turn (an openai SDK loop) against a plain tool env turn; 1,000 live episodes
    "bench_agent.py": (
        ["--runs", "300", "--trajectories", "500", "--repeats", "5", "--episodes", "1000"],
        ["--runs", "10", "--trajectories", "20", "--repeats", "1", "--episodes", "50"],
    ),
    # --policy openai's client (on the openai SDK) against the client it replaced, per request
    "bench_openai_client.py": (
        ["--requests", "2000", "--repeats", "9"],
        ["--requests", "100", "--repeats", "1"],
    ),
    "bench_remote.py": (
        ["--episodes", "200", "--throughput-episodes", "1024", "--repeats", "5"],
        ["--episodes", "10", "--throughput-episodes", "256", "--repeats", "1"],
    ),
    # envs on a Ray cluster: a step's round trip, and steps/s on 1, 2 and 4 nodes against as
    # many `swift-gym serve` processes (needs ray and root; says why not otherwise)
    "bench_ray.py": (
        ["--steps", "2000", "--nodes", "1", "2", "4", "--steps-per-slot", "100", "--repeats", "3"],
        ["--steps", "100", "--nodes", "1", "2", "--steps-per-slot", "10", "--repeats", "1"],
    ),
    # the collections: each adapter against its library called directly, and listing with all
    # of them installed
    "bench_collections.py": (["--runs", "15"], ["--runs", "1"]),
    "bench_gymnasium.py": (
        ["--steps", "3000", "--repeats", "15"],
        ["--steps", "300", "--repeats", "1"],
    ),
    "bench_reasoning_gym.py": (
        ["--episodes", "500", "--repeats", "7"],
        ["--episodes", "20", "--repeats", "1"],
    ),
    "bench_textarena.py": (
        ["--episodes", "100", "--repeats", "7"],
        ["--episodes", "5", "--repeats", "1"],
    ),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--output", default=str(HERE / "RESULTS.md"))
    parser.add_argument("--quick", action="store_true", help="small sizes: checks, not results")
    parser.add_argument("--only", nargs="*", help="benchmark files to run (default: all)")
    args = parser.parse_args()
    started, results, failed = time.perf_counter(), [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (full, quick) in BENCHMARKS.items():
            if args.only and name not in args.only:
                continue
            out = Path(tmp) / f"{name}.json"
            command = [sys.executable, str(HERE / name), "--json", str(out)]
            command += quick if args.quick else full
            print(f"running {name} ...", file=sys.stderr, flush=True)
            begun = time.perf_counter()
            if subprocess.run(command, check=False).returncode != 0:
                failed.append(name)
                continue
            print(f"  {time.perf_counter() - begun:.0f} s", file=sys.stderr, flush=True)
            results.append(__import__("json").loads(out.read_text()))
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    invoked = "python benchmarks/run.py" + (" --quick" if args.quick else "")
    text = bench_report.render(results, invoked, time.perf_counter() - started, when)
    Path(args.output).write_text(text + "\n")
    print(text)
    if failed:
        print(f"benchmarks that failed to run: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
