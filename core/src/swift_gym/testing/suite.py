"""`conformance_tests`: the kit as parametrized pytest tests, one per check and config.

    test_conformance = conformance_tests(MyEnv, configs=[{}, {"seed": 3}])

Each config is played once per session (on first use) and each check becomes its own test,
so a failure reads `test_conformance[seed=3-determinism]` with the violations below it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, cast

from ..env import Env
from . import pytest_plugin
from .blocking_calls import declares_never_blocks
from .check import resolve_env, run_checks, run_sync
from .options import CheckOptions
from .report import CHECKS, ENV_CHECKS, ConformanceReport

MARKER = "swift_gym_conformance"
_ID_CHARS = 40


def config_id(config: Mapping[str, Any]) -> str:
    """A short test id for a config: `default`, `seed=3`, `size=6,is_slippery=True`."""
    if not config:
        return "default"
    parts = []
    for key, value in config.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        parts.append(f"{key}={text}")
    label = ",".join(parts)
    return label if len(label) <= _ID_CHARS else label[: _ID_CHARS - 3] + "..."


def _unique(labels: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    unique = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        unique.append(label if seen[label] == 1 else f"{label}#{seen[label]}")
    return unique


def conformance_tests(
    env: type[Env] | str,
    configs: Sequence[Mapping[str, Any]] = ({},),
    *,
    ids: Sequence[str] | None = None,
    **options: Any,
) -> Callable[..., None]:
    """A pytest test function that runs every conformance check on every config.

    Assign it to a `test_*` name in a test module. `env` is the env class or its registered
    name; `options` are those of `check_env` (`sample_replies`, `seeds`, `max_steps`,
    `block_budget`, `call_timeout`, `copies`, `skip`). `ids` names the configs in test ids.
    `pytest --swift-gym-block-budget=SECONDS` overrides the budget on slow machines.
    """
    import pytest

    checked = CheckOptions.from_kwargs(options)
    config_list = [dict(config) for config in configs]
    if ids is not None and len(ids) != len(config_list):
        raise ValueError(f"ids has {len(ids)} names for {len(config_list)} configs")
    labels = _unique(list(ids) if ids is not None else [config_id(c) for c in config_list])
    cases = [pytest.param(None, check, id=check) for check in ENV_CHECKS if check in checked.checks]
    cases += [
        pytest.param(index, check, id=f"{labels[index]}-{check}")
        for index in range(len(config_list))
        for check in CHECKS
        if check not in ENV_CHECKS and check in checked.checks
    ]
    reports: dict[int | None, ConformanceReport] = {}

    def report_for(index: int | None, budget: float | None) -> ConformanceReport:
        if index not in reports:
            env_class, label = resolve_env(env)
            options = checked if budget is None else replace(checked, block_budget=budget)
            if index is None:
                base = config_list[:1]
                only_env = replace(options, skip=frozenset(CHECKS) - set(ENV_CHECKS))
                reports[index] = run_sync(lambda: run_checks(env_class, label, [], only_env, base))
            else:
                per_config = replace(options, skip=options.skip | set(ENV_CHECKS))
                config = [config_list[index]]
                reports[index] = run_sync(lambda: run_checks(env_class, label, config, per_config))
        return reports[index]

    @pytest.mark.parametrize(("config_index", "check"), cases)
    def test_conformance(config_index: int | None, check: str, request: Any) -> None:
        if check == "never_blocks" and not declares_never_blocks(resolve_env(env)[0]):
            pytest.skip("the env does not declare never_blocks")
        budget = request.config.getoption(pytest_plugin.BUDGET_DEST, default=None)
        violations = report_for(config_index, budget).of(check)
        if violations:
            shown = "\n".join(f"  - {violation}" for violation in violations[:20])
            more = f"\n  ... and {len(violations) - 20} more" if len(violations) > 20 else ""
            pytest.fail(f"{CHECKS[check]}: {len(violations)} violations\n{shown}{more}", False)

    test_conformance.__doc__ = f"Conformance of {env if isinstance(env, str) else env.__name__}."
    if pytest_plugin.active():  # else the marker is unknown, an error under --strict-markers
        test_conformance = getattr(pytest.mark, MARKER)(test_conformance)
    return cast("Callable[..., None]", test_conformance)
