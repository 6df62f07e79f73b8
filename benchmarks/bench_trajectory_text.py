"""Trajectory text at scale: the training writer on replies full of lone surrogates, and
`swift-gym replay --list` on a large file.

- writer: `encoded_turn` + `encoded_line` (what the scheduler runs inside a rollout) on a reply
  of N lone surrogates in one run, and on N alternating with text (one run each), in a new
  process each: seconds and the process's peak RSS.
- listing: `swift-gym replay --list` of a file of N eval episodes, piped: seconds to the first
  line, seconds in all, and the command's peak RSS (the listing streams, so it should not grow
  with N).

Not part of run.py's suite; run it alone: `python benchmarks/bench_trajectory_text.py`
(`--surrogates N`, `--episodes N`), JSON on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import select
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

SCRIPT = Path(sys.executable).parent / "swift-gym"

WRITER = textwrap.dedent(
    """
    import json, resource, sys, time
    from swift_gym.episode.records import turn_record
    from swift_gym.ms_swift.trajectory_log import encoded_line, encoded_turn
    n, kind = int(sys.argv[1]), sys.argv[2]
    reply = "\\ud800" * n if kind == "run" else "a\\ud800" * n
    started = time.perf_counter()
    line = encoded_line(
        {"index": 0, "turns": [encoded_turn(turn_record(1, reply, "obs", 1.0, True, {}))]}
    )
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "peak_rss_mb": peak, "bytes": len(line)}))
    """
)


def writer(n: int, kind: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", WRITER, str(n), kind], capture_output=True, text=True, check=True
    )
    return {"surrogates": n, "layout": kind, **json.loads(done.stdout)}


def episode(index: int) -> dict[str, Any]:
    turns = [
        {"turn": t, "reply": "<action>up</action> " * 20, "action": "up", "valid_action": True,
         "observation": "FFFH\nFPFF\nFFFG\n" * 10, "reward": 0.0, "done": False, "info": {}}
        for t in range(1, 6)
    ]  # fmt: skip
    return {"index": index, "env": "frozen_lake", "seed": index, "env_config": {"seed": index},
            "policy": "random", "system_prompt": "play", "observation": "start", "turns": turns,
            "num_turns": 5, "total_reward": 0.0, "success": False, "status": "max_turns",
            "error": None}  # fmt: skip


def listing(n: int, directory: Path) -> dict[str, Any]:
    path = directory / "episodes.jsonl"
    with path.open("w") as file:
        for index in range(n):
            file.write(json.dumps(episode(index)) + "\n")
    environ = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120"}
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(SCRIPT), "replay", "--list", str(path)], stdout=subprocess.PIPE, env=environ
    )
    assert process.stdout is not None
    first = None
    lines = 0
    while True:
        select.select([process.stdout], [], [])
        chunk = os.read(process.stdout.fileno(), 1 << 20)
        if not chunk:
            break
        if first is None and b"frozen_lake" in chunk:
            first = time.perf_counter() - started
        lines += chunk.count(b"\n")
    process.wait()
    total = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {
        "episodes": n,
        "file_mb": path.stat().st_size / 1e6,
        "first_line_seconds": first,
        "seconds": total,
        "lines": lines,
        "peak_rss_mb_of_children": peak,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--surrogates", type=int, default=10_000_000)
    parser.add_argument("--episodes", type=int, default=100_000)
    args = parser.parse_args()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as directory:  # first: its peak is the first child's
        results["listing"] = listing(args.episodes, Path(directory))
    results["writer"] = [
        writer(args.surrogates, "run"),
        writer(args.surrogates // 2, "alternating"),
    ]
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
