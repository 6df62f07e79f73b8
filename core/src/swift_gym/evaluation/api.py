"""The library's entry points: `evaluate` and `evaluate_async` turn their arguments into
episodes (`sources`), a policy (`policies`) and a view (`progress`), check them all before
anything is played, and run them (`runner`) into an `EvalResult`.

Checked first, each with a `SwiftGymError` that says what to fix: the env names and configs (as
ms-swift would build them), every dataset row, the policy (the oracle needs `oracle_reply()` in
every env, or `oracle_reply_async()`: a served env's server says at reset whether it serves
one), and that `output` can be made. `swift-gym eval` calls `evaluate_async` with its own
view and `Stop` (which its signal handlers set); the library itself never touches signals.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Iterable, Mapping
from pathlib import Path
from typing import Any

from . import defaults
from .errors import EvaluationError
from .progress import RunView, view_of
from .result import EvalResult
from .runner import Stop, run_episodes
from .sources import Rows, check_dataset, configs_of, from_dataset, generated

EnvArgument = str | Mapping[str, Any] | Iterable[Mapping[str, Any]] | None


async def evaluate_async(
    env: EnvArgument,
    policy: Any,
    *,
    episodes: int | None = None,
    seed_start: int = 0,
    dataset: Rows | None = None,
    max_turns: int | None = None,
    concurrency: int = defaults.CONCURRENCY,
    output: Path | str | None = None,
    progress: bool | RunView = False,
    stop: Stop | None = None,
    keep_records: bool = True,
    ray_address: str | None = None,
    rollouts_per_seed: int = 1,
) -> EvalResult:
    """Play episodes of `env` with `policy` and summarise them (see `evaluate`)."""
    from ..placement import placement_for
    from ..registry import default_registry
    from .policies import OraclePolicy, as_policy

    if max_turns is not None:
        _check_int("max_turns", max_turns, 1)
    _check_int("concurrency", concurrency, 1)
    _check_int("seed_start", seed_start, 0)
    if episodes is not None:
        _check_int("episodes", episodes, 1)
    _check_int("rollouts_per_seed", rollouts_per_seed, 1)
    rollouts = rollouts_per_seed
    chosen = as_policy(policy)
    if dataset is None:
        if env is None:
            raise EvaluationError("give an env (a name, a config or a list of them), or dataset=")
        configs = configs_of(env)
        for config in configs:
            _check_config(config, seed_start)
        count = episodes or defaults.EPISODES
        total = count * len(configs) * rollouts
        specs = generated(configs, count, seed_start, rollouts)
        envs = {config["name"] for config in configs}
    else:
        default_env, fields = _dataset_env(env)
        if not isinstance(dataset, (str, Path)):
            dataset = list(dataset)  # read twice: to check, then to play
        rows, envs = check_dataset(dataset, default_env, fields, episodes)
        total = rows * rollouts
        specs = from_dataset(dataset, default_env, fields, rows, rollouts)
    if output is not None and str(output) != "-" and not Path(output).parent.is_dir():
        from ..errors import OutputError

        raise OutputError(f"cannot write {output}: directory {Path(output).parent} does not exist")
    if isinstance(chosen, OraclePolicy):
        from ..env import Env

        for name in sorted(envs):
            cls = default_registry().get_env_class(name)
            if callable(getattr(cls, "oracle_reply_async", None)):
                continue  # asked of where it is played (openenv: its server says, at reset)
            if getattr(cls, "oracle_reply", None) is Env.oracle_reply:
                raise EvaluationError(
                    f"env {name!r} has no oracle policy: {cls.__name__} does not define "
                    "oracle_reply(). Use another policy: random, or a model."
                )
    seeded = getattr(chosen, "set_rollouts_per_seed", None)
    if callable(seeded):
        seeded(rollouts)
    placement = placement_for(ray_address, envs)
    try:
        run = await run_episodes(
            specs,
            total,
            chosen,
            max_turns,
            concurrency,
            output,
            stop=stop,
            view=view_of(progress),
            slim=not keep_records,
            build=placement.open if placement is not None else None,
        )
    finally:
        if placement is not None:
            placement.shutdown()
    return EvalResult(run.records, run.unrecorded, run.stopped, run.signal, slim=not keep_records)


def evaluate(env: EnvArgument, policy: Any, **options: Any) -> EvalResult:
    """Play episodes of `env` with `policy` and summarise them: an `EvalResult`.

    `env`: an env name (`"frozen_lake"`), a config (`{"name": "frozen_lake", "size": 6}`) or a
    list of configs, each played for `episodes` episodes (default 100) from seeds
    `seed_start + i`; with `dataset` (a JSONL file or its rows), the env of rows without a name,
    and a config's other fields are set over each row's. `policy`: `"random"`, `"oracle"`, an
    `OpenAIPolicy(base_url=..., model=...)`, or a function `(messages, env) -> reply`, async or
    not, whose reply is text, an assistant message with `tool_calls` (an env that offers
    tools), or an `episode.Reply`. At most `max_turns` replies an episode (default: the env's
    `max_turns_hint()`, its natural horizon, else 10), `concurrency` episodes at a time;
    `output` writes the trajectory file as episodes end (`-`: stdout); `progress=True` shows a
    bar on stderr. `stop` (a `Stop`) ends the run when interrupted; `keep_records=False` keeps
    only what the summary needs. `ray_address` (default: `SWIFT_GYM_RAY_ADDRESS`, unset: off)
    plays every env inside Ray actors on that cluster (`swift_gym.placement`); their actors are
    killed when the run ends. `rollouts_per_seed` plays each seed (each dataset row) that many
    times, each rollout with its own sampling seed; the summary's `rollouts` then holds pass@k
    and the per-seed spread (see `rollouts`), and `episodes` still counts seeds (rows).

    Where an event loop already runs in this thread (Jupyter), the run gets a thread of its own;
    there, `await evaluate_async(...)` is the direct way. Ctrl-C (KeyboardInterrupt) stops the
    run, keeps the file's complete prefix, and is raised again.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return run_to_result(evaluate_async(env, policy, **options))
    return _in_a_thread(env, policy, options)


class _Held:
    """A result with the plain `object` repr: see `run_to_result`."""

    __slots__ = ("value",)

    def __init__(self, value: EvalResult):
        self.value = value


def run_to_result(run: Coroutine[Any, Any, EvalResult]) -> EvalResult:
    """`asyncio.run(run)`, minus a cost of Python 3.11's: on its way out `asyncio.run` asks
    `signal.getsignal(SIGINT)`, which formats the repr of its own handler, the main task, and
    so the task's result, twice; an `EvalResult`'s repr summarises every record (15 ms at
    2,000 episodes, 9% of a 2,000-episode oracle run). The task's result is held in a box."""

    async def held() -> _Held:
        return _Held(await run)

    return asyncio.run(held()).value


def _in_a_thread(env: EnvArgument, policy: Any, options: dict[str, Any]) -> EvalResult:
    stop = options.setdefault("stop", Stop())
    loop = asyncio.new_event_loop()
    outcome: dict[str, Any] = {}

    def play() -> None:
        try:
            outcome["result"] = loop.run_until_complete(evaluate_async(env, policy, **options))
        except BaseException as error:
            outcome["error"] = error
        finally:
            loop.close()

    thread = threading.Thread(target=play, name="swift-gym-evaluate", daemon=True)
    thread.start()
    interrupted = False
    while thread.is_alive():
        try:
            thread.join()
        except KeyboardInterrupt:
            interrupted = True
            if not loop.is_closed():
                loop.call_soon_threadsafe(stop.interrupt, "interrupted")
    if interrupted:
        raise KeyboardInterrupt
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]  # type: ignore[no-any-return]


def _check_int(name: str, value: Any, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise EvaluationError(f"{name}={value!r}: a whole number, at least {low}")


def _check_config(config: dict[str, Any], seed_start: int) -> None:
    """The env exists and `config` (with the first seed) fits its schema."""
    from ..config import validate_config
    from ..registry import default_registry

    cls = default_registry().get_env_class(config["name"])
    validate_config(cls.config_model, {**config, "seed": seed_start}, config["name"])


def _dataset_env(env: EnvArgument) -> tuple[str | None, dict[str, Any]]:
    """With a dataset, `env` is the env of rows without a name (and fields set over each row)."""
    if env is None or isinstance(env, str):
        return env, {}
    if isinstance(env, Mapping):
        fields = dict(env)
        name = fields.pop("name", None)
        if name is not None and not isinstance(name, str):
            raise EvaluationError(f"env config name {name!r}: give the env's name as a string")
        return name, fields
    raise EvaluationError("with dataset=, env is one name or one config (the rows name the rest)")
