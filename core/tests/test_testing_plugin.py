"""The pytest side of the kit: `conformance_tests` in a real pytest run, and the plugin's cost.

Each test runs pytest in a new process on a test module written to a temporary directory, so
the plugin is loaded from the installed `pytest11` entry point, as in an env package.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from swift_gym.testing import CHECKS

ENV_MODULE = """
    import random, time
    from pydantic import Field
    from swift_gym import Env, EnvConfig
    from swift_gym.testing import conformance_tests


    class CoinConfig(EnvConfig):
        flips: int = Field(3, ge=1, le=10)


    class CoinEnv(Env):
        config_model = CoinConfig
        nap = 0.0

        async def reset(self, request=None):
            self.rng = random.Random(self.config.seed)
            self.left = self.config.flips
            return "Call heads or tails.", {"status": "reset"}, "Answer heads or tails."

        async def step(self, messages):
            time.sleep(self.nap)
            self.left -= 1
            content = messages[-1].get("content")
            call = content.strip() if isinstance(content, str) else ""
            side = self.rng.choice(["heads", "tails"])
            won = call == side
            observation = f"{side} (luck {self.rng.random():.6f})"
            return observation, float(won), self.left == 0, {"status": "won" if won else "lost"}


    class NappingCoinEnv(CoinEnv):
        nap = 0.02


    class ForgetfulCoinEnv(CoinEnv):
        async def reset(self, request=None):
            result = await super().reset(request)
            self.rng = random.Random()
            return result
"""


def run_pytest(tmp_path: Path, tests: str, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "coin_env.py").write_text(textwrap.dedent(ENV_MODULE))
    (tmp_path / "test_coin.py").write_text(textwrap.dedent(tests))
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "SWIFT_GYM_"))}
    environ["PYTHONPATH"] = str(tmp_path)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rf", *args]
    return subprocess.run(
        [*command, str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environ,
        timeout=300,
    )


ONE_LINE = """
from coin_env import CoinEnv, conformance_tests

test_conformance = conformance_tests(CoinEnv, configs=[{}, {"seed": 5}], sample_replies=["heads"])
"""

PER_CONFIG = len(CHECKS) - 3


def test_one_line_gives_one_test_per_check_and_config(tmp_path: Path) -> None:
    result = run_pytest(tmp_path, ONE_LINE, "--collect-only")
    ids = [line.split("::")[1] for line in result.stdout.splitlines() if "::" in line]
    assert len(ids) == 3 + 2 * PER_CONFIG
    assert "test_conformance[config_schema]" in ids
    assert "test_conformance[default-determinism]" in ids
    assert "test_conformance[seed=5-isolation]" in ids
    result = run_pytest(tmp_path, ONE_LINE)
    assert result.returncode == 0, result.stdout + result.stderr
    # CoinEnv does not declare never_blocks: that check is skipped for each config
    assert f"{3 + 2 * PER_CONFIG - 2} passed, 2 skipped" in result.stdout


def test_a_broken_env_fails_the_test_of_that_check(tmp_path: Path) -> None:
    tests = ONE_LINE.replace("CoinEnv,", "ForgetfulCoinEnv,").replace(
        "import CoinEnv", "import ForgetfulCoinEnv"
    )
    result = run_pytest(tmp_path, tests)
    assert result.returncode == 1
    failed = {line.split()[1] for line in result.stdout.splitlines() if line.startswith("FAILED")}
    assert failed == {
        "test_coin.py::test_conformance[default-determinism]",
        "test_coin.py::test_conformance[default-isolation]",
        "test_coin.py::test_conformance[seed=5-determinism]",
        "test_coin.py::test_conformance[seed=5-isolation]",
    }
    assert "the same seed and replies give the same episode: 3 violations" in result.stdout
    assert "[determinism] (config {'seed': 5})" in result.stdout


def test_the_marker_selects_conformance_tests_under_strict_markers(tmp_path: Path) -> None:
    tests = ONE_LINE + "\n\ndef test_other():\n    pass\n"
    result = run_pytest(tmp_path, tests, "--strict-markers", "-m", "swift_gym_conformance")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{3 + 2 * PER_CONFIG - 2} passed, 2 skipped, 1 deselected" in result.stdout


def test_without_the_plugin_the_tests_still_run(tmp_path: Path) -> None:
    result = run_pytest(tmp_path, ONE_LINE, "--strict-markers", "-p", "no:swift_gym")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "unrecognized arguments" not in result.stderr


def test_the_budget_option_overrides_the_default(tmp_path: Path) -> None:
    tests = """
from coin_env import NappingCoinEnv, conformance_tests

test_conformance = conformance_tests(
    NappingCoinEnv, [{"seed": 1}], skip=["garbage", "close", "determinism", "isolation"]
)
"""
    assert run_pytest(tmp_path, tests, "-k", "blocking").returncode == 0
    result = run_pytest(tmp_path, tests, "-k", "blocking", "--swift-gym-block-budget=0.001")
    assert result.returncode == 1
    assert "step() blocked the event loop" in result.stdout


def test_options_are_checked_when_the_module_is_collected(tmp_path: Path) -> None:
    tests = ONE_LINE.replace('sample_replies=["heads"]', 'skip=["determinsm"]')
    result = run_pytest(tmp_path, tests)
    assert result.returncode == 2  # a collection error, not a test failure
    assert "unknown check 'determinsm' in skip; did you mean 'determinism'?" in result.stdout


def test_the_plugin_imports_nothing_heavy() -> None:
    probe = (
        "import json, sys, swift_gym.testing.pytest_plugin;"
        "print(json.dumps([m for m in ('pydantic', 'pluggy', 'swift_gym.testing.check')"
        " if m in sys.modules]))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert json.loads(result.stdout) == []


@pytest.mark.parametrize("args", [(), ("-p", "no:swift_gym")])
def test_an_unrelated_pytest_run_does_not_load_the_kit(tmp_path: Path, args) -> None:
    tests = """
        import sys

        def test_nothing_heavy_was_imported():
            assert "pydantic" not in sys.modules
            assert "swift_gym.testing.check" not in sys.modules
    """
    result = run_pytest(tmp_path, tests, *args)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_plugin_adds_no_warning_to_unrelated_runs(tmp_path: Path) -> None:
    """pytest rewrites the modules of a plugin's distribution: none may be imported before."""
    result = run_pytest(tmp_path, "def test_nothing():\n    pass\n")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PytestAssertRewriteWarning" not in result.stdout + result.stderr
