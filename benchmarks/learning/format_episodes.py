"""Episodes of uniformly random *valid* replies, the data of a format-only warm start.

`swift-gym eval --policy random` draws from generic replies, half of them invalid on purpose;
the warm start must teach the format and nothing about the map, so here each reply is one of
the four `<action>DIR</action>` tags, uniformly, from a seeded RNG. With `--tool` (experiment
C, `--set action_format=tool`) each reply is an assistant message calling `move` with one of the
four directions instead. The file is `eval -o`'s format, for `swift-gym export` (tool episodes
become ms-swift's agent SFT rows).

    python benchmarks/learning/format_episodes.py --set map=SFFF/FHFH/FFFH/HFFG -n 400 -o f.jsonl
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from evaluate import parse_set
from model import ACTION_TOKENS, ACTIONS, move_message


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="frozen_lake")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("-n", "--episodes", type=int, default=400)
    parser.add_argument("--seed-start", type=int, default=0)
    parser.add_argument("--max-turns", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tool", action="store_true", help="replies call move (tool envs)")
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args(argv)

    import swift_gym

    rng = random.Random(args.seed)

    def uniform_action(messages: list, env: object) -> str | dict:
        if args.tool:
            return move_message(rng.choice(ACTIONS))
        return rng.choice(ACTION_TOKENS)

    result = swift_gym.evaluate(
        {"name": args.env, **parse_set(args.set)},
        uniform_action,
        episodes=args.episodes,
        seed_start=args.seed_start,
        max_turns=args.max_turns,
        concurrency=1,
        output=str(args.output),
    )
    print(f"{result.episodes} episodes, success {result.success_rate:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
