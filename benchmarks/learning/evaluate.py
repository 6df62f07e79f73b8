"""Evaluate a checkpoint on FrozenLake episodes: `swift_gym.evaluate` with a local model.

    python benchmarks/learning/evaluate.py CHECKPOINT --set map=SFFF/FHFH/FFFH/HFFG \
        -n 200 --seed-start 0 --temperature 1.0 -o episodes.jsonl --json summary.json

The episodes file is `swift-gym eval -o`'s format (`swift-gym report` and `replay` read it);
the summary holds the library's numbers: success rate with its Wilson 95% interval, mean
reward with its 95% interval, mean turns, invalid-action rate, statuses, and the wall time.
See local_policy.py for why this runs in-process rather than behind `swift deploy`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from local_policy import LocalPolicy


def parse_set(items: list[str]) -> dict:
    """`KEY=VALUE` pairs, values read as JSON literals when they parse (as `swift-gym --set`)."""
    config = {}
    for item in items:
        key, _, value = item.partition("=")
        try:
            config[key] = json.loads(value)
        except json.JSONDecodeError:
            config[key] = value
    return config


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("--env", default="frozen_lake")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("-n", "--episodes", type=int, default=200)
    parser.add_argument("--seed-start", type=int, default=0)
    parser.add_argument("--max-turns", type=int, default=10)
    parser.add_argument("--temperature", type=float, default=1.0, help="0: greedy")
    parser.add_argument("--top-k", type=int, default=50)
    parser.add_argument("--top-p", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0, help="seed of the sampling generator")
    parser.add_argument("--max-new-tokens", type=int, default=4, help="tokens per reply")
    parser.add_argument("--device", default="cpu", help="cpu, cuda, cuda:1 ...")
    parser.add_argument(
        "--agent-template", help="encode and parse with ms-swift's template and this agent "
        "template (tool envs: hermes), as `--agent_template` trains",
    )  # fmt: skip
    parser.add_argument(
        "--history", choices=["rollout", "chat"], default="rollout",
        help="with --agent-template, earlier replies as GRPO's rollouts keep them (the sampled "
        "ids, as the swift_gym scheduler hands them to ms-swift) or as a chat's text "
        "(local_policy.py says where they can differ)",
    )  # fmt: skip
    parser.add_argument("--template", default="qwen2_5", help="ms-swift's template type")
    parser.add_argument("--model-type", default="qwen2", help="ms-swift's model type")
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument("--json", type=Path, required=True, help="write the summary here")
    parser.add_argument(
        "--greedy", type=Path, metavar="STEM",
        help="also play the same episodes greedily: STEM.jsonl and STEM.json (one model load)",
    )  # fmt: skip
    args = parser.parse_args(argv)

    import swift_gym

    policy = LocalPolicy(
        args.checkpoint,
        args.temperature,
        args.top_k,
        args.top_p,
        args.max_new_tokens,
        args.seed,
        args.device,
        args.agent_template,
        args.template,
        args.model_type,
        args.history,
    )
    config = {"name": args.env, **parse_set(args.set)}
    failed = play(swift_gym, policy, config, args, args.output, args.json)
    if args.greedy:
        policy.temperature = 0.0
        args.temperature = 0.0
        failed += play(
            swift_gym, policy, config, args, args.greedy.with_suffix(".jsonl"),
            args.greedy.with_suffix(".json"),
        )  # fmt: skip
    return 1 if failed else 0


def play(swift_gym, policy, config: dict, args, output: Path, summary_path: Path) -> int:
    """One evaluation: episodes to `output`, summary to `summary_path`; failed episodes."""
    started = time.perf_counter()
    result = swift_gym.evaluate(
        config,
        policy,
        episodes=args.episodes,
        seed_start=args.seed_start,
        max_turns=args.max_turns,
        concurrency=1,
        output=str(output),
    )
    summary = dict(result.summary)
    summary.pop("per_env", None)
    summary.update(
        wall_s=round(time.perf_counter() - started, 2),
        checkpoint=str(args.checkpoint),
        temperature=args.temperature,
        seed_start=args.seed_start,
        max_turns=args.max_turns,
    )
    summary_path.write_text(json.dumps(summary, indent=1, default=list))
    shown = {k: summary[k] for k in ("episodes", "success_rate", "mean_turns", "temperature")}
    print(json.dumps(shown))
    return result.failed_episodes


if __name__ == "__main__":
    sys.exit(main())
