"""`swift-gym eval`: play many episodes with a policy, summarise them, keep every trajectory.

A thin face over `swift_gym.evaluation.evaluate_async`, which checks the arguments, plays the
episodes (generated seeds or a dataset file's rows, `--concurrency` at a time) and writes `-o`
as they end. The command adds its options, its view and signals (`eval_run`), the summary table
or `--json`, and exit codes: 1 when an episode failed (env error, policy error, an API that
errors or stalls) or the API went down, 130 on SIGINT and 143 on SIGTERM (after the summary of
what was played), 2 for arguments the library refuses.
"""

from __future__ import annotations

import sys
from contextlib import nullcontext, redirect_stdout
from pathlib import Path
from typing import Any

import click
from rich.text import Text

from ..evaluation import defaults
from ..evaluation.api import evaluate_async, run_to_result
from ..evaluation.errors import BadRowsError
from ..evaluation.runner import Stop
from ..evaluation.stats import json_safe
from ..output_files import describe, is_stdout
from .console import print_json, stderr
from .errors import EXIT_OK, EXIT_PROBLEMS, CommandError
from .eval_output import print_rest, refuse_to_replace
from .eval_run import EvalRun
from .options import json_option, parse_overrides, set_option
from .summary_view import print_summary

DEFAULT_EPISODES = defaults.EPISODES
DEFAULT_MAX_TOKENS = defaults.MAX_TOKENS
DEFAULT_RETRIES = defaults.RETRIES


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
@click.option(
    "--rollouts-per-seed", type=click.IntRange(min=1), default=1, show_default=True,
    metavar="K",
    help="Play each seed (each --dataset row) K times, each rollout with its own sampling seed; "
    "the summary adds pass@k and how the rollouts of a seed agree.",
)  # fmt: skip
@set_option
@click.option(
    "--dataset", type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Play the rows of this JSONL dataset instead of generated seeds (NAME, if given, is "
    "the env of rows without env_config.name).",
)  # fmt: skip
@click.option(
    "--max-turns", type=click.IntRange(min=1),
    help="Replies per episode at most, like ms-swift's --max_turns [default: the env's natural "
    f"horizon (Env.max_turns_hint), else {defaults.MAX_TURNS}].",
)  # fmt: skip
@click.option(
    "--concurrency", type=click.IntRange(min=1), default=defaults.CONCURRENCY, show_default=True,
    help="Episodes played at the same time.",
)  # fmt: skip
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path, allow_dash=True),
    help="Write every trajectory to this JSONL file ('-': stdout, the summary then goes to "
    "stderr).",
)  # fmt: skip
@click.option(
    "--force", is_flag=True,
    help="Replace -o FILE if it holds something (without it eval refuses: that keeps the "
    "episodes of an earlier run).",
)  # fmt: skip
@click.option(
    "--base-url", envvar="OPENAI_BASE_URL", show_envvar=True,
    help=f"openai: the API's base URL, up to /v1 [default: {defaults.BASE_URL}].",
)  # fmt: skip
@click.option("--model", help="openai: the model name [default: the one the server lists].")
@click.option(
    "--api-key-env", metavar="VAR",
    help="openai: environment variable holding the API key [default: SWIFT_GYM_API_KEY, "
    "then OPENAI_API_KEY].",
)  # fmt: skip
@click.option(
    "--timeout", type=click.FloatRange(min=0, min_open=True), default=defaults.TIMEOUT,
    show_default=True,
    help="openai: seconds one request may take, waiting in the server's queue included.",
)  # fmt: skip
@click.option(
    "--retries", type=click.IntRange(min=0), default=DEFAULT_RETRIES, show_default=True,
    help="openai: retries of a request that could not connect, lost its connection or got "
    "408/409/429/5xx, after 0.5, 1, 2, 4, 8, 8 s (rides out a server restart). A request that "
    "timed out is retried once at most, after a pause as long as --timeout (at most 30 s).",
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
    rollouts_per_seed: int,
    overrides: tuple[str, ...],
    dataset: Path | None,
    max_turns: int | None,
    concurrency: int,
    output: Path | None,
    force: bool,
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
    failed (env error, API error or timeout) or the API or an env server went down (the episodes
    not started are recorded as not_played), else 0. Ctrl-C stops the run and prints the summary
    of the episodes played (exit 130; SIGTERM: 143); -o then keeps them, in order, and eval
    prints the command that plays the rest. A non-empty -o file is replaced only with --force.
    """
    fields = parse_overrides(overrides, {"name": "the env is the NAME argument"})
    if dataset is None:
        if name is None:
            raise CommandError("give an env NAME, or --dataset FILE")
        if "seed" in fields:
            raise CommandError("--set seed=...: episode i gets seed --seed-start + i")
    if is_stdout(output) and as_json:
        raise CommandError("-o - and --json both write to stdout: give -o a file")
    refuse_to_replace(output, force)
    env = {"name": name, **fields} if name else fields or None
    chosen = _policy(
        policy, base_url, model, api_key_env, timeout, retries, temperature, max_tokens
    )
    stop = Stop()
    try:
        result = run_to_result(
            evaluate_async(
                env,
                chosen,
                episodes=episodes,
                seed_start=seed_start,
                dataset=dataset,
                max_turns=max_turns,
                concurrency=concurrency,
                output=output,
                progress=EvalRun(stop),
                stop=stop,
                keep_records=False,
                rollouts_per_seed=rollouts_per_seed,
            )
        )
    except BadRowsError as error:
        _show_bad_rows(error)
        raise SystemExit(EXIT_PROBLEMS) from None
    label = name if name else dataset.name if dataset else ""
    limits = turn_limits_text(result.turn_limits or ([max_turns] if max_turns else []))
    settings = chosen.settings() if policy == "openai" else None
    model = f" ({settings['model']} at {settings['base_url']})" if settings else ""
    title = f"{label} with policy {policy}{model}: {result.total} episodes"
    if rollouts_per_seed > 1:
        seeds = result.total // rollouts_per_seed
        title += f" ({seeds} {'rows' if dataset else 'seeds'} x {rollouts_per_seed} rollouts)"
    if limits:
        title += f", at most {limits} turns"
    if policy == "openai":
        title += f" of at most {max_tokens} tokens"
    summary = result.summary
    per_env = result.per_env
    limit = result.turn_limits[0] if len(result.turn_limits) == 1 else result.turn_limits or None
    extra = {
        "env": label or None,
        "policy": policy,
        "policy_settings": settings,
        "max_turns": limit,
        "cut_off": result.cut_off,
        "cut_off_hint": cut_off_hint(result.cut_off, limits),
        "stopped": result.stopped,
        "max_tokens": max_tokens if policy == "openai" else None,
    }
    if as_json:
        kept = str(output) if output else None
        print_json(json_safe({**summary, **extra, "output": kept, "per_env": per_env}))
    else:
        kept = describe(output) if output else None
        with redirect_stdout(sys.stderr) if is_stdout(output) else nullcontext():
            print_summary(summary, title, kept, result.stopped, per_env, extra["cut_off_hint"])
    if result.signal is not None:
        kept = result.total - result.unrecorded
        print_rest(
            click.get_current_context(),
            kept,
            result.unrecorded,
            seed_start,
            dataset,
            rollouts_per_seed,
        )
        raise SystemExit(128 + result.signal)
    failed = summary["failed_episodes"] or result.stopped
    raise SystemExit(EXIT_PROBLEMS if failed else EXIT_OK)


def turn_limits_text(limits: list[int]) -> str:
    """The run's turn limit: "10", "10 to 20" when the envs' horizons differ, or "" when no
    episode got as far as its env."""
    if not limits:
        return ""
    return str(limits[0]) if len(limits) == 1 else f"{limits[0]} to {limits[-1]}"


def cut_off_hint(cut_off: int, limits: str) -> str | None:
    """What to do about episodes the turn limit ended before the env did, or None."""
    if not cut_off:
        return None
    were = "episode was" if cut_off == 1 else "episodes were"
    return f"{cut_off} {were} cut off at max_turns ({limits}): raise it with --max-turns N"


def _show_bad_rows(error: BadRowsError) -> None:
    """Each bad row's problems, by line, then how many and how to see them all."""
    for line, problem in error.problems:
        stderr().print(Text.assemble((f"{error.dataset}, line {line}: ", "red"), problem))
    stderr().print(Text(error.summary(), style="bold red"))


def _policy(
    kind: str,
    base_url: str | None,
    model: str | None,
    api_key_env: str | None,
    timeout: float,
    retries: int,
    temperature: float | None,
    max_tokens: int,
) -> Any:
    if kind != "openai":
        return kind
    from ..evaluation.openai import OpenAIPolicy, find_api_key

    key = find_api_key(api_key_env)
    if api_key_env and key is None:
        raise CommandError(f"--api-key-env {api_key_env}: that variable is not set")
    return OpenAIPolicy(
        base_url or defaults.BASE_URL,
        model,
        api_key=key,
        max_tokens=max_tokens,
        temperature=temperature,
        timeout=timeout,
        retries=retries,
    )
