"""The start-up hook fills ms-swift's registries when they are imported, in a new process.

Here `swift` is a small in-process fake of ms-swift's three registry modules (named as such), so
these tests run without torch; `tests/swift/` repeats the checks against the real ms-swift.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("clean_plugin_env")

FAKE_SWIFT = {
    "swift/__init__.py": "",
    "swift/rollout/__init__.py": "",
    "swift/rollout/gym_env.py": "envs = {'math_env': 'ms-swift own', 'counter': 'theirs'}\n",
    "swift/rollout/multi_turn.py": """
        from .gym_env import envs

        class GYMScheduler:
            def __init__(self, max_turns=None, gym_env=None, **kwargs):
                self.gym_env_name = gym_env
                self._envs, self._total_rewards, self._step_rewards = {}, {}, {}
                self._pending_obs = {}

            def _create_env(self, env_config):
                name = env_config.get('name', self.gym_env_name)
                if name not in envs:
                    raise ValueError(f'Environment {name} not found')
                return envs[name](env_config)

        multi_turns = {'gym_scheduler': GYMScheduler}
    """,
    "swift/rewards/__init__.py": "",
    "swift/rewards/orm.py": """
        class ORM:
            def __init__(self, args=None, **kwargs):
                self.args = args

        orms = {'format': ORM}
    """,
}

PROBE = """
import json
from swift.rollout.multi_turn import multi_turns, envs
from swift.rewards.orm import orms
print(json.dumps({
    "envs": {k: v if isinstance(v, str) else repr(v) for k, v in envs.items()},
    "schedulers": sorted(multi_turns), "orms": sorted(orms),
}))
"""


@pytest.fixture
def fake_swift(tmp_path: Path, fake_dist, counter_module) -> dict[str, str]:
    """Environment variables for a child process that sees the fake ms-swift and a counter env."""
    root = tmp_path / "fake_swift"
    for relative, source in FAKE_SWIFT.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
    info = fake_dist(
        "gym-counter",
        envs={"counter": "gym_counter:CounterEnv", "other": "gym_counter:CounterEnv"},
        modules={"gym_counter": counter_module},
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
    env["PYTHONPATH"] = os.pathsep.join([str(root), str(info.parent)])
    env["SWIFT_GYM_LOAD_PLUGINS"] = "gym-counter"
    return env


def run(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)


def test_registries_are_filled_on_import_without_replacing_entries(fake_swift) -> None:
    result = run(PROBE, fake_swift)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["envs"] == {
        "math_env": "ms-swift own",
        "counter": "theirs",
        "gym-counter:counter": "<swift-gym env 'gym-counter:counter'>",
        "gym-counter:other": "<swift-gym env 'gym-counter:other'>",
        "other": "<swift-gym env 'other'>",
    }
    assert seen["schedulers"] == ["gym_scheduler", "swift_gym"]
    assert seen["orms"] == ["format", "swift_gym_success", "swift_gym_total"]


def test_autoload_off_leaves_ms_swift_alone_until_asked(fake_swift) -> None:
    fake_swift["SWIFT_GYM_AUTOLOAD"] = "0"
    seen = json.loads(run(PROBE, fake_swift).stdout)
    assert seen["schedulers"] == ["gym_scheduler"] and seen["orms"] == ["format"]
    result = run("import swift_gym.swift\n" + PROBE, fake_swift)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["schedulers"] == ["gym_scheduler", "swift_gym"]


def test_envs_made_through_ms_swift_are_validated(fake_swift) -> None:
    code = """
from swift.rollout.multi_turn import multi_turns
scheduler = multi_turns['gym_scheduler'](gym_env='other')
print(type(scheduler._create_env({'limit': 2})).__name__)
try:
    scheduler._create_env({'limit': 0})
except ValueError as error:
    print(error)
try:
    scheduler._create_env({'name': 'othr'})
except LookupError as error:
    print(error)
"""
    result = run(code, fake_swift)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "CounterEnv"
    assert lines[1] == "invalid env_config for env 'other' (1 problem):"
    assert lines[2].startswith("  - limit: Input should be greater than or equal to 1 (got 0)")
    assert lines[3] == "unknown env 'othr'. Did you mean 'other'?"


def test_the_hook_is_idle_for_other_imports(fake_swift) -> None:
    code = "import sys, json; import email.parser; " + (
        "print(json.dumps([type(f).__name__ for f in sys.meta_path]))"
    )
    finders = json.loads(run(code, fake_swift).stdout)
    assert finders.count("_RegistryFinder") == 1
    probe = "import sys; print('pydantic' in sys.modules, 'pluggy' in sys.modules)"
    result = run(probe, fake_swift)
    assert result.stdout.split() == ["False", "False"]


MANY = """
    import swift_gym


    @swift_gym.hookimpl
    def swift_gym_register_envs(register):
        for index in range(100_000):
            register(f"level_{index:05d}", "gym_counter:CounterEnv")
"""


def test_an_unknown_gym_env_among_100k_is_a_short_message(fake_swift, fake_dist) -> None:
    info = fake_dist("gym-many", plugins={"many": "gym_many"}, modules={"gym_many": MANY})
    fake_swift["PYTHONPATH"] += os.pathsep + str(info.parent)
    fake_swift["SWIFT_GYM_LOAD_PLUGINS"] = "gym-many"
    code = """
from swift.rollout.multi_turn import multi_turns
scheduler = multi_turns['gym_scheduler'](gym_env='level_0424x')
for config in ({}, {'name': 'levl_00007'}, {'name': ['not', 'hashable']}):
    try:
        scheduler._create_env(config)
    except LookupError as error:
        print(len(str(error)), str(error).splitlines()[0])
"""
    result = run(code, fake_swift)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    sizes = [int(line.split(" ", 1)[0]) for line in lines]
    assert all(size < 1000 for size in sizes), sizes
    assert lines[0].endswith("unknown env 'level_0424x'. Did you mean 'level_04240'?")
    assert lines[1].endswith("unknown env 'levl_00007'. Did you mean 'level_00007'?")
    assert lines[2].endswith("unknown env \"['not', 'hashable']\".")
