"""Write a FrozenLake GRPO dataset: one ms-swift row per seed, each env_config validated.

    python examples/make_frozen_lake_dataset.py -n 1024 -o frozen_lake.jsonl [--size 4 --p 0.8]

The prompt is a placeholder: the env writes the real first message at reset. Rows of seeds
give the same maps as ms-swift's FrozenLake example plugin.
"""

from __future__ import annotations

import argparse
import json

import swift_gym

PLACEHOLDER = {"role": "user", "content": "<placeholder>"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--rows", type=int, default=1024)
    parser.add_argument("--seed-start", type=int, default=0)
    parser.add_argument("--size", type=int, default=4)
    parser.add_argument("--p", type=float, default=0.8)
    parser.add_argument("--max-steps", type=int, default=None, help="step limit inside the env")
    parser.add_argument("-o", "--output", default="frozen_lake.jsonl")
    args = parser.parse_args()
    config_model = swift_gym.get_env_class("frozen_lake").config_model
    with open(args.output, "w", encoding="utf-8") as out:
        for seed in range(args.seed_start, args.seed_start + args.rows):
            env_config = {"name": "frozen_lake", "seed": seed, "size": args.size, "p": args.p}
            if args.max_steps is not None:
                env_config["max_steps"] = args.max_steps
            swift_gym.validate_config(config_model, env_config, "frozen_lake")
            row = {"messages": [PLACEHOLDER], "env_config": env_config}
            out.write(json.dumps(row) + "\n")
    print(f"wrote {args.rows} rows to {args.output}")


if __name__ == "__main__":
    main()
