"""TextArena adapter speed: swift-gym-textarena's steps per second against TextArena called
directly.

For a few games, the same episodes twice, in turns: through the adapter (a new env per episode
as ms-swift builds one per trajectory, `await reset()`, `await step(messages)` per move: the
game on a worker thread under its time limit, reading the reply, the observation text, the
info) and through TextArena alone, as its README plays a single-player game: `ta.make(id)`,
`reset(num_players=1, seed=...)`, `get_observation()` and `step(move)` until done, `close()`.
TextArena alone runs twice: `ta.make(id)` as users call it (with its default wrappers: the
history rendered as text for an LLM, action formatting), and the unwrapped `-raw` game the
adapter wraps, whose ratio is the adapter's whole cost, its own text included. The moves are
made before timing (the oracle's for games that have one, else the game's sample moves drawn
with a fixed seed) and every side plays the same list; checked afterwards: the same steps and
the same rewards.

Needs textarena and swift-gym-textarena installed (`tox -e bench` runs it through run.py; the
`swift` env, which has every env package, runs the short form).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
from typing import Any

import textarena
from bench_timing import goal, interleaved, median, paired_ratio, ratio_row, timed, write_json

import swift_gym

GAMES = ("GuessTheNumber-v0", "TowerOfHanoi-v0", "2048-v0-3x3")
MAX_MOVES = 40


async def moves_of(ta_id: str, seed: int) -> list[str]:
    """The replies one episode plays: the oracle's to the end, else random sample moves."""
    env = swift_gym.make({"name": f"textarena.{ta_id}", "seed": seed})
    await env.reset()
    has_oracle = type(env).oracle_reply is not swift_gym.Env.oracle_reply
    rng = random.Random(seed)
    moves, done = [], False
    while not done and len(moves) < MAX_MOVES:
        move = env.oracle_reply() if has_oracle else rng.choice(env.sample_replies())
        moves.append(move)
        _, _, done, _ = await env.step([{"role": "assistant", "content": move}])
    await env.close()
    return moves


def play_direct(
    ta_id: str, episodes: list[tuple[int, list[str]]], raw: bool = True
) -> tuple[int, float]:
    """TextArena alone: (steps, total reward of player 0). `raw`: the unwrapped game the
    adapter wraps; else `ta.make(id)` as TextArena's README calls it, with its default wrappers
    (the LLM observation wrapper, which renders the history as text, and action formatting)."""
    steps, total = 0, 0.0
    for seed, moves in episodes:
        env = textarena.make(f"{ta_id}-raw" if raw else ta_id)
        env.reset(num_players=1, seed=seed)
        done = False
        for move in moves:
            env.get_observation()
            done, _ = env.step(move)
            steps += 1
            if done:
                break
        rewards, _ = env.close()
        total += float(rewards.get(0, 0.0)) if done and rewards else 0.0
    return steps, total


async def play_adapter(ta_id: str, episodes: list[tuple[int, list[str]]]) -> tuple[int, float]:
    """The same through swift-gym-textarena: (steps, total reward)."""
    cls = swift_gym.get_env_class(f"textarena.{ta_id}")
    steps, total = 0, 0.0
    for seed, moves in episodes:
        env = cls({"seed": seed})
        await env.reset()
        for move in moves:
            _, reward, done, _ = await env.step([{"role": "assistant", "content": move}])
            steps += 1
            total += reward
            if done:
                break
        await env.close()
    return steps, total


WHY = (
    "each reset and step runs the game on a worker thread under the episode's time limit "
    "(sandbox.run: asyncio.to_thread, about 50 to 100 us a call here), so that a game that "
    "hangs or computes for long holds only its own episode; a single-player TextArena step "
    "costs tens of microseconds, less than that hop"
)


def measure(episodes: int, repeats: int) -> dict[str, Any]:
    rows, goals = [], []
    for ta_id in GAMES:
        played = [(seed, asyncio.run(moves_of(ta_id, seed))) for seed in range(episodes)]
        adapter = asyncio.run(play_adapter(ta_id, played))
        for raw in (True, False):
            direct = play_direct(ta_id, played, raw)
            if direct[0] != adapter[0] or abs(direct[1] - adapter[1]) > 1e-9:
                raise AssertionError(f"{ta_id}: different episodes: {direct} != {adapter}")
        steps = adapter[0]

        def run_raw(ta_id: str = ta_id, played: list[Any] = played) -> float:
            gc.collect()
            return steps / timed(lambda: play_direct(ta_id, played, True))  # noqa: B023

        def run_wrapped(ta_id: str = ta_id, played: list[Any] = played) -> float:
            gc.collect()
            return steps / timed(lambda: play_direct(ta_id, played, False))  # noqa: B023

        def run_adapter(ta_id: str = ta_id, played: list[Any] = played) -> float:
            gc.collect()
            return steps / timed(lambda: asyncio.run(play_adapter(ta_id, played)))  # noqa: B023

        runs = {"adapter": run_adapter, "ta.make(id)": run_wrapped, "raw game": run_raw}
        results = interleaved(runs, repeats)
        ours = median(results["adapter"])
        for side in ("ta.make(id)", "raw game"):
            paired = paired_ratio(results["adapter"], results[side])
            name = f"steps/s, {ta_id} ({episodes} episodes, {steps} steps) vs {side}"
            base = median(results[side])
            rows.append({**ratio_row(name, ours, base, "/s"), "ratio": paired})
            text = f">= 0.9x TextArena directly ({side}): {ta_id}"
            goals.append(goal(text, f"{paired:.2f}x", paired >= 0.9, WHY))
    return {
        "benchmark": "TextArena adapter speed",
        "repeats": repeats,
        "detail": f"{episodes} episodes per game, repeat and side (a new game each), median of "
        f"{repeats} repeats, the sides in turns",
        "rows": rows,
        "goals": goals,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--json")
    args = parser.parse_args()
    write_json(args.json, measure(args.episodes, args.repeats))


if __name__ == "__main__":
    main()
