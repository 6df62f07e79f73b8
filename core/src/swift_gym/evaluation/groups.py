"""The rows of a per-env table: which group each episode is summarised in, and its label.

Two configs of one env (`[{"name": "frozen_lake"}, {"name": "frozen_lake", "size": 6}]`) are
two rows, `frozen_lake` and `frozen_lake size=6`: a label is the env's name, then each config
field whose value differs between that env's episodes (never `name` or `seed`, which says which
episode, not which config). An `openenv` episode (a `swift-gym dataset --remote` row) is
labelled by the env the server played, `frozen_lake via openenv`, and told apart by that env's
config; the pool of servers is not part of it. An env played with more than `MAX_CONFIGS`
configs (a dataset with a map per row) stays one row: rows of one episode summarise nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

REMOTE_ENV = "openenv"
"""The env that plays an env served elsewhere (`swift_gym.remote`)."""
NOT_CONFIG = ("name", "seed")
MAX_CONFIGS = 12
"""Distinct configs of one env told apart at most; with more, the env is one row."""
TEXT_CHARS = 40
"""A field's name or value in a label is cut to this many characters."""

Group = tuple[str, dict[str, Any]]
"""(env label, the config fields that may tell its episodes apart)."""


def group_of(record: Mapping[str, Any]) -> Group:
    """The env an episode played (for `openenv`: the served one) and its config fields."""
    kept = record.get("group")  # a slim record's (see `records.slim`)
    if isinstance(kept, list) and len(kept) == 2 and isinstance(kept[1], dict):
        return str(kept[0]), kept[1]
    env = str(record.get("env"))
    config = record.get("env_config")
    config = config if isinstance(config, Mapping) else {}
    if env == REMOTE_ENV:
        served = config.get("env_config")
        if isinstance(served, Mapping) and isinstance(served.get("name"), str):
            env, config = f"{served['name']} via {REMOTE_ENV}", served
        else:
            config = {}
    return env, {key: value for key, value in config.items() if key not in NOT_CONFIG}


def group_labels(records: Iterable[Mapping[str, Any]]) -> list[str]:
    """Each record's row label (see the module docstring), in the records' order."""
    groups = [group_of(record) for record in records]
    configs: dict[str, dict[str, dict[str, Any]]] = {}
    for env, config in groups:
        configs.setdefault(env, {})[_text(config)] = config
    shown = {env: _differing(list(found.values())) for env, found in configs.items()}
    return [_label(env, config, shown[env]) for env, config in groups]


def _differing(configs: list[dict[str, Any]]) -> list[str]:
    """The fields whose values differ between `configs` (all distinct), when few enough."""
    if not 1 < len(configs) <= MAX_CONFIGS:
        return []
    keys = sorted({str(key) for config in configs for key in config})
    missing = object()
    return [key for key in keys if len({_text(config.get(key, missing)) for config in configs}) > 1]


def _label(env: str, config: dict[str, Any], keys: list[str]) -> str:
    fields = [f"{_cut(key)}={_cut(_text(config[key]))}" for key in keys if key in config]
    return " ".join([env, *fields])


def _text(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)
    except ValueError:  # a circular structure: compared by its repr
        return repr(value)


def _cut(text: str) -> str:
    return text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 1] + "…"
