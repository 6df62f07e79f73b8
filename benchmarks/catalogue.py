"""The env catalogue's numbers: every installed env's random and oracle success, measured and
written to docs/envs/catalogue.json, from which the docs' catalogue page (docs/envs/catalogue.md)
is built.

    tox -e catalogue                  # installs the core and every env package, then runs this
    python benchmarks/catalogue.py    # the same, in a venv that has them (about 2 min, 2 cores)
    python benchmarks/catalogue.py --only 'frozen_lake*' --episodes 2 -o /tmp/c.json  # a smoke run

Each env plays `--episodes` seeded episodes (seeds 0..N-1) with the random policy and, where it
has one, as many with its oracle: `swift_gym.evaluation.catalogue.entry`, as `swift-gym eval
NAME --policy random|oracle -n N` plays them, with each env's own turn limit. Envs play with
their defaults, except those that have none to play with (`CONFIGS`). The `openenv` env plays
against `swift-gym serve frozen_lake`, which this script starts on 127.0.0.1 and stops; an env
whose config needs what only rows and the operator give (`mcp_tools`: the operator's MCP
servers, a prompt and an answer) gets a row that says so instead of numbers.

Not a cost benchmark (benchmarks/run.py does not run it): measured scores, not timings.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import subprocess
import sys
import threading
from concurrent.futures import ProcessPoolExecutor
from fnmatch import fnmatchcase
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
OUTPUT = REPO / "docs" / "envs" / "catalogue.json"
COMMAND = "tox -e catalogue"
CONFIGS: dict[str, dict[str, Any]] = {
    # composite mixes the datasets a row names, and has no default mix
    "reasoning_gym.composite": {
        "datasets": [
            {"name": "chain_sum", "weight": 1, "config": {}},
            {"name": "word_sorting", "weight": 1, "config": {}},
        ]
    },
}
"""Envs whose defaults play no episode: the config each is measured with (shown on the page)."""
SERVED = {"openenv": "frozen_lake"}
"""Envs that play a served env: the env `swift-gym serve` serves them here."""
SHOWN_URL = "http://127.0.0.1:PORT"
"""How the catalogue shows the served env's address (its port changes every run)."""
LIBRARIES = ("gymnasium", "reasoning-gym", "textarena", "verifiers")
"""The wrapped libraries whose versions the file records, where installed."""
READY = re.compile(r"on (http://127\.0\.0\.1:\d+)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, default=OUTPUT)
    parser.add_argument("-n", "--episodes", type=int, default=20, help="per policy per env")
    parser.add_argument("--seed-start", type=int, default=0)
    parser.add_argument(
        "--only", action="append", default=[], metavar="GLOB", help="envs to measure (repeatable)"
    )
    parser.add_argument("--jobs", type=int, default=2, help="processes measuring at once")
    args = parser.parse_args()

    import swift_gym

    specs = [spec for spec in swift_gym.list_envs() if _wanted(spec.name, args.only)]
    if not specs:
        sys.exit(f"no installed env matches {' or '.join(args.only) or 'anything'}")
    servers: dict[str, tuple[subprocess.Popen[str], str]] = {}
    try:
        jobs = []
        for spec in specs:
            config = dict(CONFIGS.get(spec.name, {}))
            if spec.name in SERVED:
                served = SERVED[spec.name]
                if served not in servers:
                    servers[served] = _serve(served)
                config["base_url"] = servers[served][1]
            jobs.append((spec.name, config, args.episodes, args.seed_start))
        entries = _measure(jobs, args.jobs)
    finally:
        for process, _ in servers.values():
            process.terminate()
            process.wait(30)
    for entry in entries:
        if entry["name"] in SERVED:
            entry["config"] = {**entry["config"], "base_url": SHOWN_URL}
            entry["note"] = (
                f"played against swift-gym serve {SERVED[entry['name']]}, which the script starts"
            )
    catalogue = {
        "command": COMMAND,
        "episodes": args.episodes,
        "seeds": f"{args.seed_start}..{args.seed_start + args.episodes - 1}",
        "interval": "95% Wilson score interval of the success rate",
        "max_turns": "each env's own turn limit (max_turns_hint), else 10, as swift-gym eval",
        "packages": _versions({spec.distribution for spec in specs if spec.distribution}),
        "libraries": _versions(set(LIBRARIES)),
        "envs": sorted(entries, key=lambda entry: entry["name"]),
    }
    args.output.write_text(json.dumps(catalogue, indent=1, ensure_ascii=False) + "\n")
    measured = sum(entry["random"] is not None for entry in entries)
    print(f"{len(entries)} envs ({measured} measured) -> {args.output}", file=sys.stderr)


def _wanted(name: str, patterns: list[str]) -> bool:
    return not patterns or any(fnmatchcase(name, pattern) for pattern in patterns)


def _measure(jobs: list[tuple[Any, ...]], processes: int) -> list[dict[str, Any]]:
    """Each job's catalogue entry, `processes` envs at a time, each in a fresh process pool
    worker (spawned: the parent holds a server's reader thread)."""
    context = multiprocessing.get_context("spawn")
    entries = []
    with ProcessPoolExecutor(processes, mp_context=context) as pool:
        for done, entry in enumerate(pool.map(_entry, jobs), 1):
            entries.append(entry)
            scores = entry["random"], entry["oracle"]
            shown = " ".join(
                f"{policy} {score['success_rate']}"
                for policy, score in zip(("random", "oracle"), scores, strict=True)
                if score
            )
            print(f"[{done}/{len(jobs)}] {entry['name']}: {shown or entry['not_measured']}",
                  file=sys.stderr, flush=True)  # fmt: skip
    return entries


def _entry(job: tuple[Any, ...]) -> dict[str, Any]:
    from swift_gym.evaluation.catalogue import entry

    name, config, episodes, seed_start = job
    return entry(name, config, episodes=episodes, seed_start=seed_start)


def _serve(name: str) -> tuple[subprocess.Popen[str], str]:
    """`swift-gym serve NAME` on a free port of 127.0.0.1, and its URL once it listens."""
    command = [sys.executable, "-m", "swift_gym", "serve", name, "--port", "0"]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    lines = []
    for line in process.stderr:
        lines.append(line)
        if match := READY.search(line):
            # keep reading what it says, so its pipe never fills
            threading.Thread(target=process.stderr.read, daemon=True).start()
            return process, match.group(1)
    process.wait()
    sys.exit(f"swift-gym serve {name} did not start:\n{''.join(lines)}")


def _versions(distributions: set[str]) -> dict[str, str]:
    found = {}
    for name in sorted(distributions):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            continue
    return found


if __name__ == "__main__":
    main()
