"""Give GRPO dataset rows the tools their env offers: a `tools` column, as ms-swift reads it.

`swift-gym dataset` writes `{"messages": [...], "env_config": {...}}`. The `swift_gym` scheduler
sets each request's `tools` from the env, but ms-swift encodes the prompt it trains on (and, in
colocate mode, the first turn's) from the row's own `tools`: without them GRPO would train on a
prompt without the tools block the rollout was played with. So each row gets its env's tools,
as the JSON string an ms-swift agent row holds (as `swift-gym export` writes them).

    python benchmarks/learning/tool_rows.py rows.jsonl -o rows-with-tools.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path


def env_tools(env_config: dict) -> str:
    """The tools of `env_config`'s env after its reset, as a JSON string."""
    import swift_gym
    from swift_gym.tools import offered_tools

    env = swift_gym.make(env_config)
    asyncio.run(env.reset())
    return json.dumps(list(offered_tools(env)), ensure_ascii=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path)
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args(argv)
    # env_config without its seed -> tools: one reset per config (FrozenLake's tools do not
    # depend on the seed; 4096 resets would cost more than the rest of the stage)
    seen: dict[str, str] = {}
    lines = []
    for line in args.rows.read_text().splitlines():
        row = json.loads(line)
        config = row["env_config"]
        key = json.dumps({k: v for k, v in config.items() if k != "seed"}, sort_keys=True)
        if key not in seen:
            seen[key] = env_tools(config)
        lines.append(json.dumps({"tools": seen[key], **row}, ensure_ascii=False))
    args.output.write_text("\n".join(lines) + "\n")
    print(f"{len(lines)} rows, {len(seen)} env config(s) -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
