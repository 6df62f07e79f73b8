"""Envs that crash, hang or return garbage, in a batch of good FrozenLake rows, under ms-swift.

Everything runs through ms-swift 4.6's real schedulers (server and colocate paths) on the
scripted engine of conftest.py. The `swift_gym` scheduler promises that a bad env ends only its
own episode, with total_reward 0 and `rollout_infos['env_error']` saying what went wrong, while
the rest of the batch completes with its rewards; and that it logs each kind of failure once.
Test envs are registered into `swift.rollout.gym_env.envs` as an --external_plugins file would.
The last tests feed module paths as env names and check that nothing is imported or run.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import ClassVar

import pytest
from module_paths import MODULE_PATHS, write_canary
from pydantic import Field
from swift.rollout.gym_env import envs

import swift_gym
from swift_gym import UnknownEnvError

TIMEOUT = 0.5
"""SWIFT_GYM_STEP_TIMEOUT for these tests: FrozenLake steps take microseconds, so this leaves
a loaded 2-core machine plenty of room, and a hung step costs the test half a second."""
HANG_GUARD = 30.0
"""How long a test waits for a batch that should end after TIMEOUT before calling it hung."""
GOOD_SEEDS = (0, 1, 2)
GOOD_TURNS = (3, 1, 3)  # shortest paths of the seeded 4x4 lakes
CLOSE_RELEASED = threading.Event()


class FaultConfig(swift_gym.EnvConfig):
    fault: str = Field("none", max_length=64)
    good_steps: int = Field(1, ge=0, le=5)


class Unrepresentable:
    """An object whose repr raises, as a half-built object's may."""

    def __repr__(self) -> str:
        raise RuntimeError("repr exploded")

    __str__ = __repr__


class AmbiguousTruth:
    """A `done` flag like a numpy array's: truth-testing it raises."""

    def __bool__(self) -> bool:
        raise ValueError("the truth value of an array with more than one element is ambiguous")


BAD_STEP_RESULTS = {
    "step_none": None,
    "step_three_tuple": ("obs", 1.0, True),
    "step_list": ["obs", 1.0, True, {}],
    "step_reward_str": ("obs", "1.0", True, {}),
    "step_reward_nan": ("obs", math.nan, True, {}),
    "step_reward_inf": ("obs", -math.inf, True, {}),
    "step_reward_none": ("obs", None, True, {}),
    "step_reward_bool": ("obs", True, True, {}),
    "step_observation_none": (None, 1.0, False, {}),
    "step_observation_bytes": (b"obs", 1.0, False, {}),
    "step_done_ambiguous": ("obs", 1.0, AmbiguousTruth(), {}),
    "step_info_unrepresentable": ("obs", 1.0, True, {"detail": Unrepresentable()}),
}
BAD_RESET_RESULTS = {
    "reset_none": None,
    "reset_two_tuple": ("obs", {}),
    "reset_observation_int": (42, {}, ""),
    "reset_observation_none": (None, {}, ""),
    "reset_system_prompt_not_str": ("obs", {}, {"role": "system", "content": "rules"}),
    "reset_info_unrepresentable": ("obs", {"detail": Unrepresentable()}, ""),
}


class FaultyEnv(swift_gym.Env):
    """Plays `good_steps` ordinary steps (reward 0.25 each), then misbehaves as `fault` says."""

    config_model: ClassVar[type[swift_gym.EnvConfig]] = FaultConfig
    config: FaultConfig

    async def reset(self, request=None):
        fault = self.config.fault
        self.steps = 0
        if fault == "reset_raises":
            raise RuntimeError("simulated reset crash")
        if fault == "reset_hangs":
            await asyncio.sleep(3600)
        if fault in BAD_RESET_RESULTS:
            return BAD_RESET_RESULTS[fault]
        return "your move", {"fault": fault}, "Reply with anything."

    async def step(self, messages):
        self.steps += 1
        if self.steps <= self.config.good_steps:
            return "keep going", 0.25, False, {"step": self.steps}
        fault = self.config.fault
        if fault == "step_raises":
            raise RuntimeError(f"simulated env crash at step {self.steps}")
        if fault in ("step_hangs", "step_and_close_hang"):
            await asyncio.sleep(3600)
        return BAD_STEP_RESULTS.get(fault, ("goal", 1.0, True, {}))

    async def close(self):
        if self.config.fault == "step_and_close_hang":
            while not CLOSE_RELEASED.is_set():  # a close stuck on the same dead resource
                await asyncio.sleep(0.05)


class SyncStepEnv(FaultyEnv):
    """`step` written without `async`: it returns a tuple, not an awaitable."""

    def step(self, messages):  # type: ignore[override]
        return "obs", 1.0, True, {}


class SyncResetEnv(FaultyEnv):
    """`reset` written without `async`."""

    def reset(self, request=None):  # type: ignore[override]
        return "obs", {}, ""


# fault: (env class, what env_error must hold)
FAULTS = {
    "step_raises": (FaultyEnv, "step failed: RuntimeError: simulated env crash at step 2"),
    "step_hangs": (FaultyEnv, f"step failed: TimeoutError: timed out after {TIMEOUT}s"),
    "step_none": (
        FaultyEnv,
        "step failed: InvalidStepError: step() must return (observation, reward, done, info) "
        "or a StepResult, got None",
    ),
    "step_three_tuple": (FaultyEnv, "step failed: InvalidStepError: step() must return (obs"),
    "step_list": (FaultyEnv, "step failed: InvalidStepError: step() must return (observation"),
    "step_reward_str": (
        FaultyEnv,
        "step failed: InvalidStepError: step()'s reward must be an int or float, got '1.0'",
    ),
    "step_reward_nan": (FaultyEnv, "step()'s reward must be finite, got nan"),
    "step_reward_inf": (FaultyEnv, "step()'s reward must be finite, got -inf"),
    "step_reward_none": (FaultyEnv, "step()'s reward must be an int or float, got None"),
    "step_reward_bool": (FaultyEnv, "step()'s reward must be an int or float, got True"),
    "step_observation_none": (
        FaultyEnv,
        "step failed: InvalidStepError: step()'s observation must be a str, got NoneType",
    ),
    "step_observation_bytes": (FaultyEnv, "step()'s observation must be a str, got bytes"),
    "step_done_ambiguous": (
        FaultyEnv,
        "step failed: InvalidStepError: step()'s done must be a bool",
    ),
    "sync_step": (SyncStepEnv, "step failed: TypeError: "),
    "reset_raises": (FaultyEnv, "reset failed: RuntimeError: simulated reset crash"),
    "reset_hangs": (FaultyEnv, f"reset failed: TimeoutError: timed out after {TIMEOUT}s"),
    "reset_none": (
        FaultyEnv,
        "reset failed: InvalidStepError: reset() must return (observation, info, "
        "system_prompt), got None",
    ),
    "reset_two_tuple": (FaultyEnv, "reset failed: InvalidStepError: reset() must return (obs"),
    "reset_observation_int": (
        FaultyEnv,
        "reset failed: InvalidStepError: reset()'s observation must be a str, got int",
    ),
    "reset_observation_none": (FaultyEnv, "reset()'s observation must be a str, got NoneType"),
    "sync_reset": (SyncResetEnv, "reset failed: TypeError: "),
}


def env_name(fault: str) -> str:
    return f"fault-{fault}"


def register(monkeypatch: pytest.MonkeyPatch, *faults: str) -> None:
    """Each fault under its own env name, so the scheduler logs each kind separately."""
    for fault in faults:
        env_class = FAULTS[fault][0] if fault in FAULTS else FaultyEnv
        monkeypatch.setitem(envs, env_name(fault), env_class)


def fault_row(fault: str, seed: int) -> dict:
    return {"name": env_name(fault), "fault": fault, "seed": seed}


@pytest.fixture
def any_reply(oracle):
    """FrozenLake rows get the shortest path; the test envs take any reply."""

    def policy(request, turn: int) -> str:
        if request.data_dict["env_config"].get("name", "frozen_lake") == "frozen_lake":
            return oracle(request, turn)
        return "<action>up</action>"

    return policy


def assert_good_rows_completed(outputs) -> None:
    for output, turns in zip(outputs, GOOD_TURNS, strict=True):
        infos = output.rollout_infos
        assert infos["env_error"] is None
        assert infos["total_reward"] == 1.0
        assert infos["gym_done"] is True
        assert infos["num_turns"] == turns


def assert_failed(output, fault: str, error: str) -> None:
    infos = output.rollout_infos
    assert infos["total_reward"] == 0.0, fault
    assert infos["env_name"] == env_name(fault)
    assert infos["env_error"] is not None and error in infos["env_error"], infos["env_error"]


def warnings_about(caplog: pytest.LogCaptureFixture, fault: str) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.name == "swift_gym"
        and record.levelno == logging.WARNING
        and f"env {env_name(fault)} " in record.getMessage()
    ]


@pytest.fixture
def timeout(monkeypatch: pytest.MonkeyPatch) -> float:
    """The per-step timeout, set before the scheduler is made (it reads it once, then)."""
    monkeypatch.setenv("SWIFT_GYM_STEP_TIMEOUT", str(TIMEOUT))
    return TIMEOUT


@pytest.fixture
def batch(rows, timeout, make_scheduler, run_rollout, any_reply):
    """Runs 3 good FrozenLake rows and the given fault rows through one `swift_gym` scheduler;
    returns (good outputs, fault outputs, scheduler)."""

    def run(*fault_configs: dict):
        configs = [{"seed": seed} for seed in GOOD_SEEDS] + list(fault_configs)
        scheduler = make_scheduler("swift_gym", any_reply)
        outputs = run_rollout("swift_gym", any_reply, rows(*configs), scheduler=scheduler)
        return outputs[: len(GOOD_SEEDS)], outputs[len(GOOD_SEEDS) :], scheduler

    return run


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_bad_env_ends_only_its_own_episode(monkeypatch, caplog, batch, fault: str) -> None:
    register(monkeypatch, fault)
    caplog.set_level(logging.WARNING, logger="swift_gym")
    good, bad, scheduler = batch(fault_row(fault, 7), fault_row(fault, 8))
    assert_good_rows_completed(good)
    for output in bad:
        assert_failed(output, fault, FAULTS[fault][1])
    assert len(warnings_about(caplog, fault)) == 1  # two failures of one kind: one log line
    assert scheduler._live == {}  # nothing left behind


def test_one_batch_with_every_fault_logs_each_kind_once(monkeypatch, caplog, batch) -> None:
    register(monkeypatch, *FAULTS)
    caplog.set_level(logging.WARNING, logger="swift_gym")
    faults = [fault for fault in FAULTS for _ in range(2)]
    good, bad, scheduler = batch(*(fault_row(f, k) for k, f in enumerate(faults)))
    assert_good_rows_completed(good)
    for output, fault in zip(bad, faults, strict=True):
        assert_failed(output, fault, FAULTS[fault][1])
    for fault in FAULTS:
        assert len(warnings_about(caplog, fault)) == 1, fault
    assert scheduler._live == {}


def test_reward_earned_before_the_failure_is_not_kept(monkeypatch, batch) -> None:
    register(monkeypatch, "step_raises")
    row = {**fault_row("step_raises", 7), "good_steps": 3}  # 3 x 0.25 earned, then a crash
    _, (output,), _ = batch(row)
    assert output.rollout_infos["total_reward"] == 0.0
    assert "simulated env crash at step 4" in output.rollout_infos["env_error"]


def test_without_a_timeout_variable_good_rows_run_as_before(
    monkeypatch, rows, make_scheduler, run_rollout, any_reply
) -> None:
    monkeypatch.delenv("SWIFT_GYM_STEP_TIMEOUT", raising=False)
    register(monkeypatch, "step_raises")
    configs = [{"seed": seed} for seed in GOOD_SEEDS] + [fault_row("step_raises", 7)]
    scheduler = make_scheduler("swift_gym", any_reply)
    assert scheduler._timeout is None
    outputs = run_rollout("swift_gym", any_reply, rows(*configs), scheduler=scheduler)
    assert_good_rows_completed(outputs[:3])
    assert_failed(outputs[3], "step_raises", FAULTS["step_raises"][1])


@pytest.mark.parametrize("fault", ["reset_system_prompt_not_str"])
def test_a_reset_whose_system_prompt_is_not_a_string_ends_its_episode(
    monkeypatch, batch, fault: str
) -> None:
    """It would otherwise reach the model as a system message whose content is not text."""
    register(monkeypatch, fault)
    good, (output,), _ = batch(fault_row(fault, 7))
    assert_good_rows_completed(good)
    assert_failed(
        output, fault, "reset failed: InvalidStepError: reset()'s system_prompt must be a str"
    )
    assert "system" in output.rollout_infos["env_error"]


@pytest.mark.parametrize("fault", ["step_info_unrepresentable", "reset_info_unrepresentable"])
def test_an_info_that_cannot_be_represented_does_not_fail_the_batch(
    monkeypatch, batch, fault: str
) -> None:
    """An info value whose repr raises: recorded as an env error, or kept as a placeholder."""
    register(monkeypatch, fault)
    good, (output,), _ = batch(fault_row(fault, 7))
    assert_good_rows_completed(good)
    infos = output.rollout_infos
    assert infos["gym_done"] is True or infos["env_error"] is not None
    if infos["env_error"] is not None:
        assert infos["total_reward"] == 0.0


def test_a_hung_step_whose_close_hangs_too_still_ends_the_episode(
    monkeypatch, batch, run_rollout
) -> None:
    """The step timeout must bound close() too: a dead env's close often waits on the same thing.

    Runs the batch in a thread and waits HANG_GUARD seconds (60x the timeout) before calling it
    hung; the env's close is then released so the thread ends either way.
    """
    register(monkeypatch, "step_and_close_hang")
    CLOSE_RELEASED.clear()
    results: list = []

    def run_batch() -> None:
        try:
            results.append(batch(fault_row("step_and_close_hang", 7)))
        except BaseException as error:  # re-raised below, in the test's thread
            results.append(error)

    thread = threading.Thread(target=run_batch, daemon=True)
    thread.start()
    thread.join(HANG_GUARD)
    hung = thread.is_alive()
    CLOSE_RELEASED.set()
    thread.join()
    assert not hung, "the batch waited on close() of an env whose step had timed out"
    if isinstance(results[0], BaseException):
        raise results[0]
    good, (output,), _ = results[0]
    assert_good_rows_completed(good)
    assert_failed(output, "step_and_close_hang", "step failed: TimeoutError")


# --- names from data are never module paths ---------------------------------------------------


@pytest.fixture
def canary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`somecanarymodule` on sys.path and PYTHONPATH; it writes the returned file if imported."""
    directory = write_canary(tmp_path / "canary")
    fired = tmp_path / "canary-fired"
    monkeypatch.syspath_prepend(str(directory))
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(directory), os.environ.get("PYTHONPATH")]))
    )
    monkeypatch.setenv("CANARY_FILE", str(fired))
    monkeypatch.delitem(sys.modules, "somecanarymodule", raising=False)
    return fired


def test_the_canary_is_armed(canary: Path) -> None:
    """The control: importing the canary does write the file, so its absence below means it."""
    import somecanarymodule  # noqa: F401

    assert canary.read_text() == "imported"


@pytest.mark.parametrize("name", MODULE_PATHS)
def test_module_paths_are_unknown_to_gym_scheduler_create_env(
    canary: Path, make_scheduler, oracle, name: str
) -> None:
    scheduler = make_scheduler("gym_scheduler", oracle)
    with pytest.raises(UnknownEnvError, match="unknown env"):
        scheduler._create_env({"name": name, "seed": 0})
    with pytest.raises(UnknownEnvError):
        swift_gym.make({"name": name, "seed": 0})
    assert name not in envs
    assert not canary.exists() and "somecanarymodule" not in sys.modules


def test_module_paths_end_only_their_own_episodes_under_swift_gym(
    canary: Path, rows, make_scheduler, run_rollout, oracle
) -> None:
    configs = [{"seed": seed} for seed in GOOD_SEEDS]
    configs += [{"name": name, "seed": 0} for name in MODULE_PATHS]
    scheduler = make_scheduler("swift_gym", oracle)
    outputs = run_rollout("swift_gym", oracle, rows(*configs), scheduler=scheduler)
    assert_good_rows_completed(outputs[:3])
    for output, name in zip(outputs[3:], MODULE_PATHS, strict=True):
        infos = output.rollout_infos
        assert infos["total_reward"] == 0.0
        assert infos["env_error"].startswith(f"reset failed: UnknownEnvError: unknown env {name!r}")
    assert not canary.exists() and "somecanarymodule" not in sys.modules


def test_an_explicit_null_name_fails_as_in_ms_swift_and_says_why(
    rows, make_scheduler, run_rollout, oracle
) -> None:
    """ms-swift takes `"name": null` as the name (no --gym_env fallback): so do the swift_gym
    scheduler's records, and the error says so instead of telling to pass --gym_env."""
    scheduler = make_scheduler("swift_gym", oracle)
    configs = [{"seed": seed} for seed in GOOD_SEEDS] + [{"name": None, "seed": 0}]
    outputs = run_rollout("swift_gym", oracle, rows(*configs), scheduler=scheduler)
    assert_good_rows_completed(outputs[:3])
    infos = outputs[3].rollout_infos
    assert infos["total_reward"] == 0.0
    assert infos["env_name"] == "None"
    assert "env_config['name'] is null" in infos["env_error"], infos["env_error"]
    assert "pass the env name" not in infos["env_error"]


GYM_ENV_FROM_THE_COMMAND_LINE = (
    "from swift.rollout.multi_turn import multi_turns; "
    "s = multi_turns['gym_scheduler'](max_turns=3, gym_env='somecanarymodule:attr'); "
    "s._create_env({'seed': 0})"
)


def test_a_module_path_as_gym_env_in_a_new_process(canary: Path) -> None:
    """`--gym_env` comes from the command line of a new process, where the start-up hook runs."""
    command = [sys.executable, "-c", GYM_ENV_FROM_THE_COMMAND_LINE]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1
    assert "UnknownEnvError: unknown env 'somecanarymodule:attr'" in result.stderr
    assert not canary.exists()
