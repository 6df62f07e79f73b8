"""The installed package is found by swift-gym in a new process, as ms-swift will find it."""

import json
import os
import subprocess
import sys

import swift_gym
from {{ cookiecutter.__package }} import {{ cookiecutter.__class }}Env

ENV_NAME = "{{ cookiecutter.env_name }}"
TARGET = "{{ cookiecutter.__package }}:{{ cookiecutter.__class }}Env"

LIST_AND_PLAY = """
import asyncio, json, swift_gym
specs = [[spec.name, spec.distribution, spec.target] for spec in swift_gym.list_envs()]
env = swift_gym.make({"name": NAME, "seed": 0})
observation, info, system_prompt = asyncio.run(env.reset())
print(json.dumps({"specs": specs, "class": type(env).__name__, "status": info["status"]}))
"""


def test_a_new_process_lists_and_makes_the_env(tmp_path):
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
    environ.pop("PYTHONPATH", None)
    result = subprocess.run(
        [sys.executable, "-c", f"NAME = {ENV_NAME!r}\n{LIST_AND_PLAY}"],
        capture_output=True,
        text=True,
        cwd=tmp_path,  # not the package directory: only what is installed counts
        env=environ,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert [ENV_NAME, "{{ cookiecutter.__distribution }}", TARGET] in found["specs"]
    assert found["class"] == "{{ cookiecutter.__class }}Env"
    assert found["status"] == "reset"


def test_the_registered_name_is_this_class():
    assert swift_gym.get_env_class(ENV_NAME) is {{ cookiecutter.__class }}Env
