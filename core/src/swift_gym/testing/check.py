"""`check_env`: play an env through many episodes and report every rule it breaks.

Everything runs on one event loop, which `check_env` creates (in a worker thread when the
caller is already inside a loop) and `check_env_async` borrows. What is played for each config
is in `runs.py`; the config model's own checks are in `config_checks.py`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Coroutine, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from ..env import Env
from .config_checks import check_config_model
from .options import CheckOptions
from .report import ENV_CHECKS, ConformanceReport
from .runs import ConfigCheck

T = TypeVar("T")


def resolve_env(env: type[Env] | str) -> tuple[type[Env], str]:
    """The env class and a label for reports, from a class or a registered env name."""
    if isinstance(env, str):
        from ..registry import get_env_class

        return get_env_class(env), env
    if isinstance(env, type) and issubclass(env, Env):
        return env, f"{env.__module__}:{env.__qualname__}"
    raise TypeError(f"check_env() takes an Env subclass or a registered env name, not {env!r}")


def check_env(
    env: type[Env] | str,
    configs: Sequence[Mapping[str, Any]] = ({},),
    *,
    sample_replies: Sequence[str | Mapping[str, Any]] = (),
    seeds: Sequence[int] = (0, 1, 2),
    max_steps: int = 50,
    block_budget: float = 0.5,
    call_timeout: float = 10.0,
    copies: int = 2,
    skip: Collection[str] = (),
) -> ConformanceReport:
    """Check `env` (a class or a registered name) with each config; see `CheckOptions`.

    Returns a `ConformanceReport`; call `.raise_for_violations()` (or use `assert_conforms`)
    to fail on any violation. Safe to call from inside a running event loop.
    """
    options = CheckOptions(
        seeds=tuple(seeds),
        sample_replies=tuple(sample_replies),
        max_steps=max_steps,
        block_budget=block_budget,
        call_timeout=call_timeout,
        copies=copies,
        skip=frozenset(skip),
    )
    env_class, label = resolve_env(env)
    return run_sync(lambda: run_checks(env_class, label, list(configs), options))


async def check_env_async(
    env: type[Env] | str,
    configs: Sequence[Mapping[str, Any]] = ({},),
    **options: Any,
) -> ConformanceReport:
    """`check_env` on the running event loop: `report = await check_env_async(MyEnv)`."""
    env_class, label = resolve_env(env)
    checked = CheckOptions.from_kwargs(options)
    return await run_checks(env_class, label, list(configs), checked)


def assert_conforms(
    env: type[Env] | str, configs: Sequence[Mapping[str, Any]] = ({},), **options: Any
) -> ConformanceReport:
    """`check_env(...)`, raising `ConformanceError` (an AssertionError) on any violation."""
    report = check_env(env, configs, **options)
    report.raise_for_violations()
    return report


def run_sync(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to completion on a new loop, in a worker thread if one is running."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    with ThreadPoolExecutor(1, thread_name_prefix="swift-gym-check") as pool:
        return pool.submit(lambda: asyncio.run(make())).result()


async def run_checks(
    env_class: type[Env],
    label: str,
    configs: Sequence[Mapping[str, Any]],
    options: CheckOptions,
    model_configs: Sequence[Mapping[str, Any]] | None = None,
) -> ConformanceReport:
    """The report for `configs`, with the config-model checks run on the first config.

    `model_configs` gives that first config instead, when `configs` is empty (pytest runs the
    model checks as tests of their own); a config is needed for envs whose defaults are invalid.
    """
    report = ConformanceReport(label, options.checks)
    if any(name not in options.skip for name in ENV_CHECKS):
        first = (model_configs if model_configs is not None else configs)[:1]
        base = dict(first[0]) if first else {}
        for violation in check_config_model(env_class, base):
            if violation.check not in options.skip:
                report.violations.append(violation)
    for config in configs:
        await ConfigCheck(env_class, config, options, report).run()
    return report
