"""Env cards: what an env is (its tools, whether it sends images) and how the random and the
oracle policy score on it, from a few seeded episodes of each.

"What should my model score?" has two bounds: the random policy (a model that learned nothing
of the format) and the oracle (the env's own reference play, where it has one). `entry(name)`
measures both for one env with `evaluate`, as `swift-gym eval --policy random|oracle -n N`
would; benchmarks/catalogue.py runs it over every installed env and writes
docs/envs/catalogue.json, from which the docs' catalogue page is built.

Nothing is hard-coded: the tools column is the env's declaration (`EnvSpec.tool_use`, what
`swift-gym list` shows), the images column what the measured episodes sent, an env with no
`oracle_reply` is "no oracle", and an env whose config cannot be played as given (required
fields a row or the operator supplies, as `mcp_tools`' servers and prompt) says why instead
of numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..deployment import deployment_of
from ..errors import SwiftGymError
from .stats import json_safe, summarize

EPISODES = 20
"""Episodes per policy per env: enough to tell 0 from 0.5 from 1 (the Wilson interval of 0 of
20 is 0 to 0.16), few enough for all 171 shipped envs in minutes on two cores."""
DIGITS = 4
"""Significant digits kept of each score."""
REASON_CHARS = 300
"""A reason or an error kept in an entry, at most."""
POLICIES = ("random", "oracle")


def entry(
    name: str,
    config: Mapping[str, Any] | None = None,
    *,
    episodes: int = EPISODES,
    seed_start: int = 0,
    max_turns: int | None = None,
) -> dict[str, Any]:
    """The catalogue entry of env `name`, played with `config` (its defaults when None).

    Keys: `name`, `distribution`, `version`, `description`, `tool_use` (the declaration, None
    when there is none), `config` (what was set), `images` (True when a measured episode sent
    an image, False when none did, None when nothing was played), `random` and `oracle` (each
    the policy's `episodes`, `success_rate`, its 95% Wilson `success_rate_ci95`, `mean_reward`,
    `mean_turns`, `failed_episodes` and the commonest `error`, or None), `oracle_note` ("no
    oracle", or why it was not played or every episode failed) and `not_measured` (why the
    random policy was not played or every episode failed; None when it was measured).
    """
    from ..config import validate_config
    from ..env import Env
    from ..registry import default_registry

    registry = default_registry()
    spec = registry.resolve(name)
    card: dict[str, Any] = {
        "name": spec.name,
        "distribution": spec.distribution,
        "version": spec.version,
        "description": spec.description,
        "tool_use": spec.tool_use,
        "config": dict(config or {}),
        "images": None,
        "random": None,
        "oracle": None,
        "oracle_note": None,
        "not_measured": None,
    }
    try:
        cls = registry.get_env_class(name)
        validate_config(cls.config_model, {**card["config"], "name": name}, name)
    except SwiftGymError as error:
        card["not_measured"] = _not_playable(error, registry, name)
        return card
    # as evaluate checks it: its own oracle_reply(), or one it asks elsewhere (a served env's
    # server, which says at reset whether it serves one: if not, the run stops and says so)
    has_oracle = getattr(cls, "oracle_reply", None) is not Env.oracle_reply or callable(
        getattr(cls, "oracle_reply_async", None)
    )
    if not has_oracle:
        card["oracle_note"] = "no oracle"
    records: list[dict[str, Any]] = []
    for policy in POLICIES if has_oracle else POLICIES[:1]:
        played = _play(name, card["config"], policy, episodes, seed_start, max_turns)
        if isinstance(played, list) and played and all(record["error"] for record in played):
            played = _bounded(f"every episode failed: {played[0]['error']}")
        if isinstance(played, str):
            if policy == "random":
                card["not_measured"] = played
                return card
            card["oracle_note"] = played
            continue
        records += played
        card[policy] = _scores(played)
    card["images"] = sends_images(records)
    return card


def _play(
    name: str,
    config: Mapping[str, Any],
    policy: str,
    episodes: int,
    seed_start: int,
    max_turns: int | None,
) -> list[dict[str, Any]] | str:
    """The records of `episodes` episodes, or why the run could not start or stopped."""
    from .api import evaluate

    try:
        result = evaluate(
            {**config, "name": name},
            policy,
            episodes=episodes,
            seed_start=seed_start,
            max_turns=max_turns,
        )
    except SwiftGymError as error:
        return _bounded(f"not played: {error}")
    if result.stopped:
        return _bounded(f"stopped: {result.stopped}")
    return result.records


def _scores(records: list[dict[str, Any]]) -> dict[str, Any]:
    summary = json_safe(summarize(records))
    errors = summary["errors"]
    return {
        "episodes": summary["episodes"],
        "success_rate": _rounded(summary["success_rate"]),
        "success_rate_ci95": [_rounded(bound) for bound in summary["success_rate_ci95"]],
        "mean_reward": _rounded(summary["mean_reward"]),
        "mean_turns": _rounded(summary["mean_turns"]),
        "failed_episodes": summary["failed_episodes"],
        "error": _bounded(next(iter(errors))) if errors else None,
    }


def _rounded(value: float | None) -> float | None:
    """A score to `DIGITS` significant digits: what a reader compares, not the float's noise."""
    return None if value is None else float(f"{value:.{DIGITS}g}")


def _not_playable(error: SwiftGymError, registry: Any, name: str) -> str:
    """Why an env's config cannot be played as given: the fields it requires, or the error."""
    from ..errors import InvalidConfigError

    problems = error.problems if isinstance(error, InvalidConfigError) else ()
    missing = [problem.field for problem in problems if not problem.has_value]
    if missing and len(missing) == len(problems):
        needs = f"needs {', '.join(missing)} in its config"
        if deployment_of(registry.get_env_class(name)).uses_operator_services:
            return _bounded(
                f"plays the operator's services: {needs}, which rows and the operator give"
            )
        return _bounded(f"{needs}, which rows give")
    return _bounded(str(error))


def sends_images(records: Iterable[Mapping[str, Any]]) -> bool:
    """Whether any of the episodes sent the model an image: an observation or a tool result
    that is not plain text (a list of content parts with one that is not text), or an `images`
    entry in an info."""
    for record in records:
        infos = [record.get("reset_info")]
        contents = [record.get("observation")]
        for turn in record.get("turns") or ():
            infos.append(turn.get("info"))
            contents.append(turn.get("observation"))
            contents += [result.get("content") for result in turn.get("tool_results") or ()]
        if any(_has_image(content) for content in contents):
            return True
        if any(isinstance(info, Mapping) and info.get("images") for info in infos):
            return True
    return False


def _has_image(content: Any) -> bool:
    if content is None or isinstance(content, str):
        return False
    if isinstance(content, list):
        return any(
            not (isinstance(part, Mapping) and part.get("type") == "text") for part in content
        )
    return True  # anything else that is not text


def _bounded(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 1] + "…"
