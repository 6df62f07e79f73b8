"""`swift-gym eval`: play many episodes with a policy, summarise them, keep every trajectory.

Episodes come from generated seeds (`--seed-start`, `-n`) or from a dataset file's rows, and run
`--concurrency` at a time on one asyncio loop. An episode that fails (env error, policy error,
an API that errors or stalls) is recorded with status "error" and the run goes on; the exit
code is then 1. The run stops early when the API is down (exit 1) or on SIGINT (exit 130) or
SIGTERM (exit 143), and still prints the summary of what it played (see `runner`).
"""

from __future__ import annotations

import asyncio
import sys
from contextlib import nullcontext, redirect_stdout
from pathlib import Path
from typing import Any

import click

from .console import print_json
from .envs import check_base_config, env_class, offers
from .errors import EXIT_OK, EXIT_PROBLEMS, CommandError
from .options import json_option, parse_overrides, set_option
from .output_files import describe, is_stdout
from .policies import OraclePolicy, Policy, RandomPolicy
from .runner import run_episodes
from .sources import check_dataset, from_dataset, generated
from .stats import json_safe, summarize
from .summary_view import print_summary

DEFAULT_EPISODES = 100
DEFAULT_MAX_TOKENS = 256
"""openai: tokens per reply unless `--max-tokens` says otherwise. Room for a short thought and
an action tag (ms-swift's FrozenLake recipe caps a turn at 512). Without a cap a server may
generate up to its whole context on every turn: minutes on a CPU, and a context overflow."""
DEFAULT_RETRIES = 5
"""openai: with the backoff of 1, 2, 4, 8 and 8 s, a request rides out a server restart of
about 20 s."""


@click.command("eval")
@click.argument("name", required=False)
@click.option(
    "--policy", type=click.Choice(["random", "oracle", "openai"]), required=True,
    help="random: random replies; oracle: the env's oracle_reply(); openai: a model behind "
    "an OpenAI-compatible API.",
)  # fmt: skip
@click.option(
    "-n", "--episodes", type=click.IntRange(min=1),
    help=f"Number of episodes [default: {DEFAULT_EPISODES}, or every row of --dataset].",
)  # fmt: skip
@click.option(
    "--seed-start", type=click.IntRange(min=0), default=0, show_default=True,
    help="Seed of the first generated episode; episode i gets seed-start + i.",
)  # fmt: skip
@set_option
@click.option(
    "--dataset", type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Play the rows of this JSONL dataset instead of generated seeds (NAME, if given, is "
    "the env of rows without env_config.name).",
)  # fmt: skip
@click.option(
    "--max-turns", type=click.IntRange(min=1), default=10, show_default=True,
    help="Replies per episode at most, like ms-swift's --max_turns.",
)  # fmt: skip
@click.option(
    "--concurrency", type=click.IntRange(min=1), default=32, show_default=True,
    help="Episodes played at the same time.",
)  # fmt: skip
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path, allow_dash=True),
    help="Write every trajectory to this JSONL file ('-': stdout, the summary then goes to "
    "stderr).",
)  # fmt: skip
@click.option(
    "--base-url", envvar="OPENAI_BASE_URL", show_envvar=True,
    help="openai: the API's base URL, up to /v1 [default: http://127.0.0.1:8000/v1].",
)  # fmt: skip
@click.option("--model", help="openai: the model name [default: the one the server lists].")
@click.option(
    "--api-key-env", metavar="VAR",
    help="openai: environment variable holding the API key [default: SWIFT_GYM_API_KEY, "
    "then OPENAI_API_KEY].",
)  # fmt: skip
@click.option(
    "--timeout", type=click.FloatRange(min=0, min_open=True), default=120.0, show_default=True,
    help="openai: seconds one request may take, waiting in the server's queue included.",
)  # fmt: skip
@click.option(
    "--retries", type=click.IntRange(min=0), default=DEFAULT_RETRIES, show_default=True,
    help="openai: retries of a request that could not connect, lost its connection or got "
    "408/409/429/5xx, after 1, 2, 4, 8, 8 s (rides out a server restart). A request that timed "
    "out is retried once at most, after a pause as long as --timeout (at most 30 s).",
)  # fmt: skip
@click.option("--temperature", type=float, help="openai: sampling temperature.")
@click.option(
    "--max-tokens", type=click.IntRange(min=1), default=DEFAULT_MAX_TOKENS, show_default=True,
    help="openai: tokens per reply at most (max_tokens of each request).",
)  # fmt: skip
@json_option
def evaluate(
    name: str | None,
    policy: str,
    episodes: int | None,
    seed_start: int,
    overrides: tuple[str, ...],
    dataset: Path | None,
    max_turns: int,
    concurrency: int,
    output: Path | None,
    base_url: str | None,
    model: str | None,
    api_key_env: str | None,
    timeout: float,
    retries: int,
    temperature: float | None,
    max_tokens: int,
    as_json: bool,
) -> None:
    """Play episodes of env NAME with a policy and summarise them.

    Prints the success rate, the mean reward with a 95% confidence interval, the mean number of
    turns, the invalid-action rate and the count of each final status. Exits 1 if an episode
    failed (env error, API error or timeout) or the API went down (the episodes not started are
    recorded as not_played), else 0. Ctrl-C stops the run and prints the summary of the episodes
    played (exit 130; SIGTERM: 143); -o then keeps them, in order.
    """
    fields = parse_overrides(overrides, {"name": "the env is the NAME argument"})
    if dataset is None:
        if name is None:
            raise CommandError("give an env NAME, or --dataset FILE")
        if "seed" in fields:
            raise CommandError("--set seed=...: episode i gets seed --seed-start + i")
        check_base_config(name, {"seed": seed_start, **fields})
        total = episodes or DEFAULT_EPISODES
        specs = generated(name, total, seed_start, fields)
        envs = {name}
    else:
        total, envs = check_dataset(dataset, name, fields, episodes)
        specs = from_dataset(dataset, name, fields, total)
    if output is not None and not is_stdout(output) and not output.parent.is_dir():
        raise CommandError(f"cannot write {output}: directory {output.parent} does not exist")
    if is_stdout(output) and as_json:
        raise CommandError("-o - and --json both write to stdout: give -o a file")
    if policy == "oracle":
        for env in sorted(envs):
            cls = env_class(env)
            if not offers(cls, "oracle_reply"):
                raise CommandError(
                    f"env {env!r} has no oracle policy: {cls.__name__} does not define "
                    "oracle_reply(). Use --policy random or --policy openai."
                )
    chosen = _policy(
        policy, base_url, model, api_key_env, timeout, retries, temperature, max_tokens, concurrency
    )
    label = name if name else dataset.name if dataset else ""
    title = f"{label} with policy {policy}: {total} episodes, at most {max_turns} turns"
    if policy == "openai":
        title += f" of at most {max_tokens} tokens"
    result = asyncio.run(run_episodes(specs, total, chosen, max_turns, concurrency, output))
    summary = summarize(result.records, result.unrecorded)
    extra = {"stopped": result.stopped, "max_tokens": max_tokens if policy == "openai" else None}
    if as_json:
        print_json(json_safe({**summary, **extra, "output": str(output) if output else None}))
    else:
        with redirect_stdout(sys.stderr) if is_stdout(output) else nullcontext():
            print_summary(summary, title, describe(output) if output else None, result.stopped)
    if result.signal is not None:
        raise SystemExit(128 + result.signal)
    failed = summary["failed_episodes"] or result.stopped
    raise SystemExit(EXIT_PROBLEMS if failed else EXIT_OK)


def _policy(
    kind: str,
    base_url: str | None,
    model: str | None,
    api_key_env: str | None,
    timeout: float,
    retries: int,
    temperature: float | None,
    max_tokens: int,
    concurrency: int,
) -> Policy:
    if kind == "random":
        return RandomPolicy()
    if kind == "oracle":
        return OraclePolicy()
    from .openai_policy import DEFAULT_BASE_URL, OpenAIPolicy, api_key

    sampling: dict[str, Any] = {"max_tokens": max_tokens}
    if temperature is not None:
        sampling["temperature"] = temperature
    key = api_key(api_key_env)
    if api_key_env and key is None:
        raise CommandError(f"--api-key-env {api_key_env}: that variable is not set")
    return OpenAIPolicy(
        base_url or DEFAULT_BASE_URL, model, key, timeout, retries, sampling, concurrency
    )
