"""check_env on envs that each break one rule: the kit names that rule, the config and step."""

from __future__ import annotations

import asyncio
import contextlib
import random
import subprocess
import sys
import time

import pytest
from pydantic import Field

from swift_gym import Env, EnvConfig
from swift_gym.testing import (
    CHECKS,
    GARBAGE_REPLIES,
    ConformanceError,
    ConformanceReport,
    Violation,
    assert_conforms,
    check_env,
    check_env_async,
)

SAMPLES = [f"{digit}" for digit in range(10)]


class DigitConfig(EnvConfig):
    limit: int = Field(4, ge=1, le=20, description="guesses per episode")


class DigitEnv(Env):
    """Guess a digit; the observation carries the env's own seeded RNG, so seeds matter."""

    config_model = DigitConfig

    def new_rng(self) -> random.Random:
        return random.Random(self.config.seed)

    async def reset(self, request=None):
        self.rng = self.new_rng()
        self.target = self.rng.randrange(10)
        self.count = 0
        return "Guess a digit.", {"status": "reset"}, "Answer with one digit."

    def secret(self) -> int:
        return self.target

    def text(self, messages) -> str:
        content = messages[-1].get("content") if messages else None
        return content.strip() if isinstance(content, str) else ""

    async def step(self, messages):
        self.count += 1
        won = self.text(messages) == str(self.secret())
        done = won or self.count >= self.config.limit
        observation = f"{'right' if won else 'wrong'} {self.rng.random():.9f}"
        return observation, float(won), done, {"status": "won" if won else "wrong"}


class UnseededEnv(DigitEnv):
    def new_rng(self):
        return random.Random()


_SHARED: dict[str, int] = {}


class SharedStateEnv(DigitEnv):
    """Keeps its secret in a module global: fine alone, wrong when interleaved."""

    async def reset(self, request=None):
        result = await super().reset(request)
        _SHARED["target"] = self.target
        return result

    def secret(self) -> int:
        return _SHARED["target"]


class GlobalRandomEnv(DigitEnv):
    def new_rng(self):
        random.seed(self.config.seed)
        return random  # type: ignore[return-value]


class BlockingEnv(DigitEnv):
    async def step(self, messages):
        time.sleep(0.03)
        return await super().step(messages)


class AwaitingEnv(DigitEnv):
    async def step(self, messages):
        await asyncio.sleep(0.4)
        return await super().step(messages)


class HangingEnv(DigitEnv):
    async def step(self, messages):
        await asyncio.sleep(60)


class MutatingEnv(DigitEnv):
    async def step(self, messages):
        messages.append({"role": "user", "content": "remember this"})
        return await super().step(messages)


class FragileEnv(DigitEnv):
    def text(self, messages):
        return messages[-1]["content"].strip()


class NanRewardEnv(DigitEnv):
    async def step(self, messages):
        observation, _, done, info = await super().step(messages)
        return observation, float("nan"), done, info


class IntDoneEnv(DigitEnv):
    async def step(self, messages):
        observation, reward, done, info = await super().step(messages)
        return observation, reward, int(done), info


class SetInfoEnv(DigitEnv):
    async def step(self, messages):
        observation, reward, done, info = await super().step(messages)
        return observation, reward, done, {**info, "seen": {1, 2}}


class ListResetEnv(DigitEnv):
    async def reset(self, request=None):
        return list(await super().reset(request))


class SyncStepEnv(DigitEnv):
    def step(self, messages):  # type: ignore[override]
        return "no", 0.0, True, {}


class CloseOnceEnv(DigitEnv):
    async def close(self):
        if getattr(self, "closed", False):
            raise RuntimeError("already closed")
        self.closed = True


class CloseNeedsResetEnv(DigitEnv):
    async def close(self):
        self.rng.random()


def run(env, **options) -> ConformanceReport:
    options.setdefault("sample_replies", SAMPLES)
    return check_env(env, [{}, {"seed": 7, "limit": 6}], **options)


SLOW_CALLS = {"seeds": [0], "skip": ["garbage", "close"]}
"""For envs that sleep: one short episode per run, so the test stays fast."""


def run_short(env, limit: int = 2, **options) -> ConformanceReport:
    return check_env(env, [{"seed": 0, "limit": limit}], **SLOW_CALLS, **options)


def test_a_conforming_env_passes_every_check() -> None:
    report = run(DigitEnv)
    assert report.ok, str(report)
    assert report.checks == tuple(CHECKS)
    assert report.episodes >= 20 and report.steps >= report.episodes
    assert "0 conformance violations" in str(report)
    report.raise_for_violations()
    assert assert_conforms(DigitEnv, sample_replies=SAMPLES).ok


BROKEN = [
    (UnseededEnv, "determinism", {}),
    (SharedStateEnv, "isolation", {}),
    (GlobalRandomEnv, "global_rng", {}),
    (MutatingEnv, "messages", {}),
    (FragileEnv, "garbage", {}),
    (NanRewardEnv, "reward", {}),
    (IntDoneEnv, "step", {}),
    (SetInfoEnv, "info_json", {}),
    (ListResetEnv, "reset", {}),
    (SyncStepEnv, "step", {}),
    (CloseOnceEnv, "close", {}),
    (CloseNeedsResetEnv, "close", {}),
]


@pytest.mark.parametrize(("env", "check", "options"), BROKEN, ids=[b[0].__name__ for b in BROKEN])
def test_each_broken_rule_is_reported_under_its_check(env, check, options) -> None:
    report = run(env, **options)
    assert report.of(check), str(report)
    played = [{}, {"seed": 0}, {"seed": 1}, {"seed": 2}, {"seed": 7, "limit": 6}]
    assert all(violation.config in played for violation in report.of(check))


@pytest.mark.parametrize(
    ("env", "unexpected"),
    [
        (SharedStateEnv, "determinism"),  # alone, shared state replays the same
        (NanRewardEnv, "determinism"),  # NaN == NaN for transcripts
        (FragileEnv, "step"),  # garbage that raises is reported once, as garbage
    ],
)
def test_checks_do_not_blame_the_wrong_rule(env, unexpected) -> None:
    assert run(env).of(unexpected) == []


def test_a_violation_names_the_step_the_reply_and_the_config() -> None:
    report = run(FragileEnv)
    reported = {violation.reply for violation in report.of("garbage")}
    assert {"none", "no_content", "list_content", "not_text"} <= reported
    assert "empty" not in reported  # "".strip() works
    first = report.of("garbage")[0]
    assert first.step == 1
    assert "AttributeError" in first.message or "KeyError" in first.message
    assert str(first).startswith("[garbage] (config {")


def test_blocking_names_the_call_and_the_budget() -> None:
    report = run_short(BlockingEnv, block_budget=0.01)
    assert report.of("blocking"), str(report)
    violation = report.of("blocking")[0]
    assert violation.message.startswith("step() blocked the event loop for 0.0")
    assert "budget 0.01 s" in violation.message
    assert violation.step == 1
    assert run_short(BlockingEnv).ok  # 0.03 s is well within the default 0.5 s


def test_awaiting_is_not_blocking() -> None:
    report = run_short(AwaitingEnv, limit=1, block_budget=0.2)  # each step awaits for 0.4 s
    assert report.ok, str(report)


def test_a_hung_step_is_cut_at_the_timeout() -> None:
    started = time.perf_counter()
    report = run_short(HangingEnv, call_timeout=0.05)
    violation = report.of("step")[0]
    assert "step() did not return within 0.05 s" in violation.message
    assert violation.step == 1
    assert time.perf_counter() - started < 5


def test_mutation_says_what_changed() -> None:
    violation = run(MutatingEnv).of("messages")[0]
    assert "the list went from 3 to 4 messages" in violation.message
    assert violation.step == 1


def test_a_config_the_env_rejects_is_reported_with_it() -> None:
    report = check_env(DigitEnv, [{"limit": 0}, {"seed": 1}], sample_replies=SAMPLES)
    (violation,) = report.violations
    assert violation.check == "construct"
    assert violation.config == {"limit": 0}
    assert "limit" in violation.message and "InvalidConfigError" in violation.message


def test_unseeded_configs_are_played_with_the_given_seeds() -> None:
    report = check_env(UnseededEnv, seeds=[11, 12], skip=["isolation"])
    assert {violation.config["seed"] for violation in report.of("determinism")} == {11, 12}


def test_skip_leaves_a_check_out() -> None:
    report = run(UnseededEnv, skip=["determinism", "isolation"])
    assert report.ok, str(report)
    assert "determinism" not in report.checks


def test_unknown_skip_names_are_refused_with_a_suggestion() -> None:
    with pytest.raises(ValueError, match="did you mean 'determinism'"):
        check_env(DigitEnv, skip=["determinsm"])


def test_raise_for_violations_is_an_assertion_listing_each_one() -> None:
    report = run(SetInfoEnv)
    with pytest.raises(ConformanceError) as caught:
        report.raise_for_violations()
    assert isinstance(caught.value, AssertionError)
    assert caught.value.report is report
    assert "[info_json]" in str(caught.value)
    assert "not JSON-serializable" in str(caught.value)
    with pytest.raises(AssertionError):
        assert_conforms(SetInfoEnv, sample_replies=SAMPLES)


def test_the_report_text_is_capped() -> None:
    report = ConformanceReport("x", tuple(CHECKS))
    report.violations = [Violation("step", f"problem {n}", {"seed": n}, n) for n in range(30)]
    text = str(report)
    assert "30 conformance violations" in text
    assert "problem 19" in text and "problem 20" not in text
    assert "... and 10 more" in text


def test_every_garbage_reply_is_an_assistant_message() -> None:
    assert {"empty", "none", "huge", "unicode", "list_content", "several_tags"} <= set(
        GARBAGE_REPLIES
    )
    assert all(reply["role"] == "assistant" for reply in GARBAGE_REPLIES.values())
    assert len(GARBAGE_REPLIES["huge"]["content"]) > 500_000


async def test_check_env_works_inside_a_running_loop() -> None:
    assert check_env(DigitEnv, sample_replies=SAMPLES).ok
    report = await check_env_async(DigitEnv, [{"seed": 2}], sample_replies=SAMPLES)
    assert report.ok, str(report)
    assert (await check_env_async(UnseededEnv)).of("determinism")


def test_an_env_is_found_by_its_registered_name(
    counter_module, fake_dist, monkeypatch, clean_plugin_env
) -> None:
    from swift_gym import registry

    fake_dist(
        "gym-counter",
        envs={"counter": "gym_counter:CounterEnv"},
        modules={"gym_counter": counter_module},
    )
    monkeypatch.setenv("SWIFT_GYM_LOAD_PLUGINS", "gym-counter")
    monkeypatch.setattr(registry, "_default", registry.Registry())
    report = check_env("counter", [{"limit": 2}])
    assert report.env == "counter"
    assert report.ok, str(report)


def test_anything_but_an_env_class_or_name_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="Env subclass or a registered env name"):
        check_env(object)  # type: ignore[arg-type]


class NeverBlocksEnv(DigitEnv):
    """Declares never_blocks and keeps to it: it awaits."""

    never_blocks = True

    async def step(self, messages):
        await asyncio.sleep(0)
        return await super().step(messages)


class SleepsAMicrosecond(NeverBlocksEnv):
    async def step(self, messages):
        time.sleep(1e-6)
        return await super().step(messages)


class ReadsAFileInClose(NeverBlocksEnv):
    async def close(self):
        with open(__file__, "rb") as file:
            file.read(1)


class ConnectsInReset(NeverBlocksEnv):
    async def reset(self, request=None):
        import socket

        with socket.socket() as sock, contextlib.suppress(OSError):
            sock.connect(("127.0.0.1", 9))  # discard: refused or not, the call blocks
        return await super().reset(request)


class SpawnsInInit(NeverBlocksEnv):
    def __init__(self, env_config=None):
        super().__init__(env_config)
        subprocess.run([sys.executable, "-c", "pass"], check=True)


@pytest.mark.parametrize(
    ("env", "call"),
    [
        (SleepsAMicrosecond, "time.sleep(1e-06)"),
        (ReadsAFileInClose, "open("),
        (ConnectsInReset, "socket.connect("),
        (SpawnsInInit, "subprocess.Popen("),
    ],
)
def test_an_env_declaring_never_blocks_fails_on_any_blocking_call(env, call) -> None:
    """However short the call: `swift-gym serve` would play it on its own loop."""
    report = check_env(env, [{"seed": 0, "limit": 2}], seeds=[0], skip=["garbage", "blocking"])
    (violation,) = report.of("never_blocks")
    assert "declares never_blocks, but it made" in violation.message
    assert call in violation.message
    assert report.of("blocking") == []  # the timing check cannot see a microsecond


def test_an_env_that_keeps_never_blocks_passes_and_others_are_not_held_to_it() -> None:
    assert run(NeverBlocksEnv).ok
    assert run_short(BlockingEnv).of("never_blocks") == []  # it never declared it
