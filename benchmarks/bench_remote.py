"""Remote envs: a served FrozenLake's step latency against the env in-process, and one server's
steps per second at 1, 16 and 256 sessions against openenv's own server on the same env.

Servers are real processes on 127.0.0.1 (`remote_servers`): `swift-gym serve frozen_lake` in
each form of its `--isolation` (`auto`, the default, run without the flag: FrozenLake declares
`never_blocks`, so it plays inline; `thread`; `shared`; `inline`; this script's `--isolation`
picks which), and openenv's `create_fastapi_app` serving the same
swift-gym FrozenLake wrapped as an OpenEnv `Environment` (`openenv_frozen_lake.py`), in its two
forms: sync `reset`/`step` (as openenv's docs write envs: each call on the session's executor
thread) and async overrides (awaited on the server's loop). openenv's server runs from a venv
of its own (`--openenv-python`, default `$BENCH_OPENENV_PYTHON`, which `tox -e bench` builds);
without one its rows are left out and its goal is reported as not measured. The client is the
same raw-websockets one for every server (why: `remote_servers`).

- **Latency.** One episode at a time, the solver's replies for seeds 0..E-1 (drawn before
  timing): each step's time as a user pays it through swift-gym's `openenv` env (`await
  env.step(messages)`, the socket on its background loop) against `await env.step(messages)` of
  `frozen_lake` in-process; and the raw client's round trip to each server. The sides take
  turns, the order rotated each round; p50 and p99 over every step of every round.
- **Throughput.** N sessions (connections opened, and one episode played on each, before
  timing: per-session set-up is not counted), each playing its share of the same E episodes
  (session i: seeds i, i+N, ...): a reset, then steps until done. Steps per second = steps /
  wall time (resets included in the time). Servers take turns each round; the
  ratio is the median of the rounds' ratios, the columns the medians of each side.
- **Checked:** every side plays the same episodes: the same number of steps, the same total
  reward, the same observation texts (a CRC over them), and the solver reaches every goal.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import time
import zlib
from typing import Any

import bench_timing
import bench_workload
import remote_servers
from bench_timing import goal, median, ratio_row, write_json

import swift_gym

SESSIONS = (1, 16, 256)


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def workload(episodes: int) -> list[tuple[int, list[str]]]:
    seeds = range(episodes)
    bench_workload.check_same_maps(seeds)
    return [(seed, bench_workload.solver_replies(seed)) for seed in seeds]


def _messages(reply: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": reply}]


async def _play_env(env: swift_gym.Env, replies: list[str], times: list[float]):
    text, _info, _system = await env.reset()
    crc, reward, steps = zlib.crc32(text.encode()), 0.0, 0
    clock = time.perf_counter
    for reply in replies:
        messages = _messages(reply)
        start = clock()
        text, r, done, _info = await env.step(messages)
        times.append(clock() - start)
        crc = zlib.crc32(text.encode(), crc)
        reward += r
        steps += 1
        if done:
            break
    await env.close()
    return steps, reward, crc


def latency_local(work, times):
    async def run():
        return [
            await _play_env(swift_gym.make({"name": "frozen_lake", "seed": s}), r, times)
            for s, r in work
        ]

    return asyncio.run(run())


def latency_openenv_env(url: str):
    def run_side(work, times):
        async def run():
            results = []
            for seed, replies in work:
                env = swift_gym.make({"name": "openenv", "base_url": url, "seed": seed})
                results.append(await _play_env(env, replies, times))
            return results

        return asyncio.run(run())

    return run_side


def latency_raw(ws_url: str):
    def run_side(work, times):
        async def run():
            sock = await remote_servers.open_socket(ws_url)
            try:
                return [await remote_servers.play(sock, s, r, times) for s, r in work]
            finally:
                await remote_servers.close_socket(sock)

        return asyncio.run(run())

    return run_side


def throughput(ws_url: str, work, sessions: int) -> tuple[float, list[Any]]:
    """(steps/s, per-episode results sorted by seed) of `sessions` connections playing `work`."""

    async def run():
        socks = await asyncio.gather(*(remote_servers.open_socket(ws_url) for _ in range(sessions)))

        async def session(i: int):
            return [
                (seed, *await remote_servers.play(socks[i], seed, replies))
                for seed, replies in work[i::sessions]
            ]

        try:
            # One untimed episode per session first: what a server sets up per session (swift-gym
            # serve's worker thread, openenv's env and executor thread) is not in the steps/s.
            await asyncio.gather(
                *(remote_servers.play(sock, *work[i % len(work)]) for i, sock in enumerate(socks))
            )
            gc.collect()
            start = time.perf_counter()
            played = await asyncio.gather(*(session(i) for i in range(sessions)))
            elapsed = time.perf_counter() - start
        finally:
            await asyncio.gather(*(remote_servers.close_socket(s) for s in socks))
        episodes = sorted(e for part in played for e in part)
        return sum(e[1] for e in episodes) / elapsed, episodes

    return asyncio.run(run())


def summary(results: list[Any]) -> tuple[int, int, float, int]:
    """(episodes, steps, total reward, CRC of every episode's texts in seed order)."""
    crc = 0
    for result in results:
        crc = zlib.crc32(str(result[-1]).encode(), crc)
    return len(results), sum(r[-3] for r in results), sum(r[-2] for r in results), crc


WHY_LATENCY = (
    "a FrozenLake step costs a few us in-process; remotely every step is a JSON frame each way "
    "over loopback TCP, the server's WebSocket parsing and session bookkeeping, with --isolation "
    "thread or shared a hop to the env's thread and back, and on the client a hop to the "
    "background loop every socket lives on (and back); on 2 busy shared cores every hop may wait "
    "for a core."
)
WHY_THROUGHPUT = (
    "by default (auto) FrozenLake, which declares never_blocks, plays on the server's loop, as "
    "--isolation inline does and openenv's async form does (no hop, no isolation: one slow step "
    "stalls every session); with --isolation thread every step is a round trip between the "
    "server's loop and the session's own env thread, so a slow or blocking env stalls only its "
    "own session, as in openenv's sync form; --isolation shared is the middle "
    "(a few loops: a blocking env stalls the sessions on its loop). At 16 and 256 sessions the "
    "one client process, on the same 2 cores, bounds every server's steps/s."
)


def measure(
    episodes: int, tp_episodes: int, repeats: int, openenv_python: str | None, isolations: list[str]
):
    work = workload(episodes)
    tp_work = workload(tp_episodes)
    servers = [remote_servers.start_ours(isolation) for isolation in isolations]
    try:
        if openenv_python:
            for mode in ("sync", "async"):
                servers.append(remote_servers.start_openenv(openenv_python, mode))
        return _measure(work, tp_work, repeats, servers, len(isolations), openenv_python)
    finally:
        for server in servers:
            server.stop()


def openenv_version(python: str) -> str:
    code = "import importlib.metadata as m; print(m.version('openenv'))"
    return bench_timing.run_python(python, ["-c", code])[1].strip()


def _measure(work, tp_work, repeats, servers, n_ours, openenv_python):
    ours, others = servers[:n_ours], servers[n_ours:]
    sides = {"in-process": latency_local}
    for server in ours:
        sides[f"openenv env -> {server.name}"] = latency_openenv_env(server.url)
    for server in servers:
        sides[f"raw -> {server.name}"] = latency_raw(server.ws_url)
    times: dict[str, list[float]] = {name: [] for name in sides}
    reference = None
    names = list(sides)
    for name in names:  # warm-up, and the check that every side plays the same episodes
        played = summary(sides[name](work, []))
        reference = reference or played
        if played != reference:
            raise AssertionError(f"{name} played {played}, in-process {reference}")
    if reference[2] != len(work):
        raise AssertionError(f"the solver did not reach every goal: {reference}")
    for round_ in range(repeats):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            sides[name](work, times[name])
    p = {name: (percentile(t, 50) * 1e6, percentile(t, 99) * 1e6) for name, t in times.items()}
    local = p["in-process"]
    rows, goals = [], []
    for server in ours:
        remote, raw = p[f"openenv env -> {server.name}"], p[f"raw -> {server.name}"]
        rows += [
            ratio_row(f"step latency p50: openenv env -> {server.name} vs in-process",
                      remote[0], local[0], "us"),
            ratio_row(f"step latency p99: openenv env -> {server.name} vs in-process",
                      remote[1], local[1], "us"),
            ratio_row(f"step latency p50 to {server.name}: openenv env vs raw client "
                      "(its background loop)", remote[0], raw[0], "us"),
        ]  # fmt: skip
        for other in others:
            theirs = p[f"raw -> {other.name}"]
            for i, q in enumerate(("p50", "p99")):
                rows.append(ratio_row(f"round trip {q}, raw client: {server.name} vs "
                                      f"{other.name}", raw[i], theirs[i], "us"))  # fmt: skip
        overhead = (remote[0] - local[0]) / 1000
        goals.append(
            goal(
                f"p50 step overhead of a remote FrozenLake < 1 ms (loopback), {server.name}",
                f"{overhead:.3f} ms (p50 {remote[0]:.0f} us remote, {local[0]:.1f} us in-process)",
                overhead < 1,
                WHY_LATENCY,
            )
        )

    tp: dict[tuple[str, int], list[float]] = {}
    tp_ref = None
    for sessions in SESSIONS:
        for round_ in range(repeats + 1):  # the first round warms up and checks
            order = servers[round_ % len(servers) :] + servers[: round_ % len(servers)]
            for server in order:
                rate, played = throughput(server.ws_url, tp_work, sessions)
                check = summary(played)
                tp_ref = tp_ref or check
                if check != tp_ref:
                    raise AssertionError(f"{server.name} x{sessions} played {check} != {tp_ref}")
                if round_:
                    tp.setdefault((server.name, sessions), []).append(rate)
    notes = []
    for sessions in SESSIONS:
        for server in ours:
            mine = tp[(server.name, sessions)]
            spread = f"{min(mine):,.0f}..{max(mine):,.0f}"
            if not others:
                notes.append(f"{server.name}, {sessions} sessions: {median(mine):,.0f} steps/s "
                             f"({spread})")  # fmt: skip
            for other in others:
                theirs = tp[(other.name, sessions)]
                paired = [a / b for a, b in zip(mine, theirs, strict=True)]
                row = ratio_row(f"steps/s, {sessions} sessions: {server.name} vs {other.name}",
                                median(mine), median(theirs), "/s")  # fmt: skip
                rows.append({**row, "ratio": median(paired),
                             "ratios": f"{min(paired):.2f}..{max(paired):.2f}"})  # fmt: skip
                if sessions == 256:
                    goals.append(goal(f"more steps/s than {other.name} at 256 sessions, "
                                      f"{server.name}", f"{median(paired):.2f}x (rounds "
                                      f"{min(paired):.2f}..{max(paired):.2f})",
                                      median(paired) > 1, WHY_THROUGHPUT))  # fmt: skip
    if not others:
        goals.append(goal("more steps/s than openenv's server at 256 sessions", "not measured",
                          False, "no venv with openenv was given (--openenv-python or "
                          "BENCH_OPENENV_PYTHON; tox -e bench builds one)"))  # fmt: skip
    steps = reference[1]
    forms = ", ".join(server.name for server in ours)
    return {
        "benchmark": "Remote envs (swift-gym serve, the openenv env)",
        "repeats": repeats,
        "detail": f"servers on 127.0.0.1, each its own process ({forms}); latency: "
        f"{len(work)} solver episodes ({steps} steps) per side and round, p50/p99 over {repeats} "
        f"rounds; throughput: {len(tp_work)} episodes ({tp_ref[1]} steps) per server and round "
        f"at 1, 16 and 256 sessions, median of {repeats} rounds (the paired rounds' ratios' "
        "range beside)"
        + (f"; openenv {openenv_version(openenv_python)} from {openenv_python}" if others else "")
        + (f"; openenv's server not run: {'; '.join(notes)}" if notes else ""),
        "rows": rows,
        "goals": goals,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=200, help="latency: episodes per round")
    parser.add_argument("--throughput-episodes", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--openenv-python", default=os.environ.get("BENCH_OPENENV_PYTHON") or None,
        help="a python with openenv and swift-gym + FrozenLake installed",
    )  # fmt: skip
    parser.add_argument(
        "--isolation", default="auto,thread,shared,inline",
        help="forms of swift-gym serve to run, comma-separated (auto: the default)",
    )  # fmt: skip
    parser.add_argument("--json")
    args = parser.parse_args()
    isolations = args.isolation.split(",")
    result = measure(
        args.episodes, args.throughput_episodes, args.repeats, args.openenv_python, isolations
    )
    write_json(args.json, result)


if __name__ == "__main__":
    main()
