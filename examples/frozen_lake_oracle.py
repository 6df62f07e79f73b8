"""Play FrozenLake episodes with the shortest-path policy and print what the model would see.

Runs anywhere the two packages are installed (no ms-swift, no GPU):
    python examples/frozen_lake_oracle.py --seed 0 --episodes 3
"""

from __future__ import annotations

import argparse
import asyncio

import swift_gym


async def play(seed: int, verbose: bool) -> float:
    env = swift_gym.make({"name": "frozen_lake", "seed": seed})
    observation, _info, system = await env.reset()
    if verbose:
        print(f"--- system ---\n{system}\n--- user ---\n{observation}")
    messages = [{"role": "system", "content": system}, {"role": "user", "content": observation}]
    total, done = 0.0, False
    while not done:
        reply = f"<action>{env.oracle_action()}</action>"
        messages.append({"role": "assistant", "content": reply})
        observation, reward, done, info = await env.step(messages)
        messages.append({"role": "user", "content": observation})
        total += reward
        if verbose:
            print(f"--- assistant ---\n{reply}\n--- user (reward {reward}) ---\n{observation}")
    await env.close()
    print(f"seed {seed}: {info['status']} in {info['step']} steps, total reward {total}")
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--quiet", action="store_true", help="print one line per episode")
    args = parser.parse_args()
    seeds = range(args.seed, args.seed + args.episodes)
    totals = [asyncio.run(play(seed, not args.quiet and seed == args.seed)) for seed in seeds]
    rate = sum(total > 0 for total in totals) / len(totals)
    print(f"success rate {rate:.2f} over {len(totals)} episodes")


if __name__ == "__main__":
    main()
