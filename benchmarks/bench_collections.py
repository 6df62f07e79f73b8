"""Listing and first make with the three collections installed (170 envs from five distributions).

Every measurement is a fresh interpreter that imports swift_gym and times one call: `list_envs()`,
and the first `make()` of an env (discovery, importing the env's module, validation, building
it). The baseline is the same call with the three collections switched off
(`SWIFT_GYM_DISABLE_PLUGINS`), as if only the core and FrozenLake were installed. Each probe
also reports which of gymnasium, reasoning_gym and textarena it imported: listing must import
none, and making FrozenLake none either.

The first make (and reset) of a collection's own env imports its library, which costs what it
costs: those rows compare it with the library's own first call in a fresh interpreter (import,
then the same item, env or game), the cost a user pays with or without swift-gym.

Needs the core and all four env packages installed (`tox -e bench` runs it through run.py; the
`swift` env, which has every env package, runs the short form).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from bench_timing import clean_environ, goal, median, ratio_row, run_python, write_json

LIBRARIES = ("gymnasium", "reasoning_gym", "textarena")
OFF = "swift-gym-gymnasium,swift-gym-reasoning-gym,swift-gym-textarena"
PROBE = """
import asyncio, json, sys, time
import swift_gym
{setup}
start = time.perf_counter()
result = {call}
seconds = time.perf_counter() - start
count = len(result) if isinstance(result, list) else None
imported = sorted({{m.split(".")[0] for m in sys.modules}} & set({libraries!r}))
print(json.dumps({{"seconds": seconds, "envs": count, "imported": imported}}))
"""
DIRECT = """
import json, sys, time
start = time.perf_counter()
{code}
print(json.dumps({{"seconds": time.perf_counter() - start}}))
"""
SWIFT_GYM = {
    "list_envs()": ("", "swift_gym.list_envs()"),
    "first make(frozen_lake)": ("", 'swift_gym.make("frozen_lake", seed=0)'),
    # inside ms-swift pydantic is loaded long before any env is made (as in bench_discovery.py)
    "first make(frozen_lake), pydantic already loaded": (
        "from pydantic import BaseModel, Field",
        'swift_gym.make("frozen_lake", seed=0)',
    ),
}
COLLECTION = {
    "reasoning_gym.chain_sum": (
        'asyncio.run(swift_gym.make("reasoning_gym.chain_sum", seed=0).reset())',
        "import reasoning_gym\nreasoning_gym.create_dataset('chain_sum', seed=0, size=500)[0]",
    ),
    "gymnasium.Taxi-v4": (
        'asyncio.run(swift_gym.make("gymnasium.Taxi-v4", seed=0).reset())',
        "import gymnasium\ngymnasium.make('Taxi-v4', disable_env_checker=True).reset(seed=0)",
    ),
    "textarena.GuessTheNumber-v0": (
        'asyncio.run(swift_gym.make("textarena.GuessTheNumber-v0", seed=0).reset())',
        "import textarena\ntextarena.make('GuessTheNumber-v0-raw').reset(num_players=1, seed=0)",
    ),
}
WHY = {
    "list_envs()": "listing reads each distribution's entry points and the hook plugins' "
    "static id lists (no library is imported); with 170 envs the registry's bookkeeping grows "
    "with them",
    "first make(frozen_lake)": "the first make of a process imports pydantic (about 70 ms on a "
    "quiet machine here, whatever is installed); inside ms-swift pydantic is already imported: "
    "see the 'pydantic already loaded' row",
}
WHY["first make(frozen_lake), pydantic already loaded"] = WHY["list_envs()"]


def probe(call: tuple[str, str], disabled: bool) -> dict[str, Any]:
    extra = {"SWIFT_GYM_DISABLE_PLUGINS": OFF} if disabled else {}
    code = PROBE.format(setup=call[0], call=call[1], libraries=LIBRARIES)
    return json.loads(run_python(sys.executable, ["-c", code], clean_environ(**extra))[1])


def direct(code: str) -> float:
    return json.loads(run_python(sys.executable, ["-c", DIRECT.format(code=code)])[1])["seconds"]


def measure(runs: int) -> dict[str, Any]:
    seconds: dict[str, list[float]] = {}
    seen: dict[str, dict[str, Any]] = {}
    for index in range(runs):
        for label, call in SWIFT_GYM.items():
            for disabled in (index % 2 == 0, index % 2 == 1):  # in turns
                result = probe(call, disabled)
                key = f"{label}, collections {'off' if disabled else 'installed'}"
                seconds.setdefault(key, []).append(result["seconds"])
                seen[key] = result
        for name, (call, library_code) in COLLECTION.items():
            result = probe(("", call), False)
            seconds.setdefault(f"first make({name})", []).append(result["seconds"])
            seconds.setdefault(f"library alone: {name}", []).append(direct(library_code))
    listed = seen["list_envs(), collections installed"]
    rows, goals = [], []
    for label in SWIFT_GYM:
        ours = median(seconds[f"{label}, collections installed"]) * 1e3
        base = median(seconds[f"{label}, collections off"]) * 1e3
        rows.append(ratio_row(f"{label}, all four env packages installed", ours, base, "ms"))
        goals.append(goal(f"{label} with the collections installed < 100 ms", f"{ours:.1f} ms",
                          ours < 100, WHY[label]))  # fmt: skip
        imported = seen[f"{label}, collections installed"]["imported"]
        goals.append(goal(f"{label} imports none of {', '.join(LIBRARIES)}",
                          ", ".join(imported) or "none", not imported))  # fmt: skip
    for name in COLLECTION:
        ours = median(seconds[f"first make({name})"]) * 1e3
        base = median(seconds[f"library alone: {name}"]) * 1e3
        label = f"first make({name}) and reset vs its library's first call"
        rows.append(ratio_row(label, ours, base, "ms"))
    return {
        "benchmark": "collections installed",
        "repeats": runs,
        "detail": f"{runs} fresh interpreters per call and side, the sides in turns; medians. "
        f"{listed['envs']} envs listed with the collections installed; baseline: their "
        f"plugins off ({seen['list_envs(), collections off']['envs']} envs)",
        "rows": rows,
        "goals": goals,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json")
    args = parser.parse_args()
    write_json(args.json, measure(args.runs))


if __name__ == "__main__":
    main()
