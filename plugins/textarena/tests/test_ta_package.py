"""The installed distribution, as a new process sees it: listing, making, `swift-gym eval`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib.metadata import distribution, entry_points

import pytest
from cli_runner import clean_environ, python_json, run

import swift_gym_textarena
from swift_gym_textarena.ids import ENV_CLASSES, ENV_NAMES, EXCLUDED, GAME_IDS, TA_IDS


def swift_gym_command(*args, cwd):
    return run(*args, cwd=cwd, drop=("PYTHONPATH",), timeout=120)


LIST = """
import json, sys, swift_gym
specs = [[s.name, s.distribution, s.target] for s in swift_gym.list_envs()]
loaded = sorted(m for m in sys.modules if m.startswith(("textarena", "swift_gym_textarena.")))
print(json.dumps({"specs": specs, "loaded": loaded}))
"""


def test_listing_finds_every_env_and_imports_nothing_of_textarena(tmp_path):
    found = python_json(LIST, tmp_path)
    ours = [spec for spec in found["specs"] if spec[1] == "swift-gym-textarena"]
    assert [spec[0] for spec in ours] == sorted(ENV_NAMES)
    assert all(target == ENV_CLASSES[name] for name, _, target in ours)
    assert found["loaded"] == ["swift_gym_textarena.ids", "swift_gym_textarena.plugin"]


MAKE_AND_PLAY = """
import asyncio, json, swift_gym
async def main():
    out = {}
    for name in NAMES:
        env = swift_gym.make({"name": name, "seed": int(name.endswith("Sudoku-v0-hard"))})
        observation, info, system_prompt = await env.reset()
        reply = env.sample_replies()[0]
        step = await env.step([{"role": "assistant", "content": reply}])
        out[name] = [info["status"], step[3]["status"], bool(system_prompt)]
    return out
print(json.dumps(asyncio.run(main())))
"""


def test_a_new_process_makes_and_plays_every_env(tmp_path):
    found = python_json(f"NAMES = {list(ENV_NAMES)!r}\n{MAKE_AND_PLAY}", tmp_path)
    assert set(found) == set(ENV_NAMES)
    for status, step_status, has_prompt in found.values():
        assert status == "reset" and has_prompt
        assert step_status in {"ok", "invalid_action", "game_over"}


def test_the_lists_match_textarenas_registry():
    """Every listed id is registered with these arguments; every single-player game of
    TextArena is either listed or excluded with a reason."""
    from textarena.envs.registration import ENV_REGISTRY

    for ta_id, game in TA_IDS.items():
        spec = ENV_REGISTRY[f"{ta_id}-raw"]
        assert spec.entry_point.split(".")[2] == game
        assert spec.kwargs == GAME_IDS[game][ta_id]
        assert not spec.default_wrappers  # raw: the observation is built here
    games = {ENV_REGISTRY[i].entry_point.split(".")[2] for i in ENV_REGISTRY}
    assert set(GAME_IDS) <= games and set(EXCLUDED) <= games
    assert len(GAME_IDS) == 21 and len(GAME_IDS) + len(EXCLUDED) == 30


TRY_EXCLUDED = """
import json, socket, textarena as ta
from textarena.envs.registration import ENV_REGISTRY
def no_network(*a, **k): raise OSError("offline (test)")
socket.socket.connect = no_network
out = {}
for game in GAMES:
    ta_id = next(i for i, s in ENV_REGISTRY.items() if s.entry_point.split(".")[2] == game)
    try:
        env = ta.make(ta_id + "-raw"); env.reset(num_players=1, seed=0)
        env.step("[test]"); out[game] = "played"
    except BaseException as error:
        out[game] = type(error).__name__ + ": " + str(error)[:300]
print(json.dumps(out))
"""

EXPECTED_FAILURE = {
    "nltk corpus": ("LookupError", "Resource 'words' not found"),
    "API key": ("ValueError", "OpenRouter API key not found"),
    "numpy": ("ImportError", "No module named 'numpy'"),
    "SyntaxError": ("SyntaxError",),
}


def test_every_excluded_game_fails_offline_as_the_list_says(tmp_path):
    """Without the network (sockets refuse to connect), no nltk data and no API key."""
    code = f"GAMES = {sorted(EXCLUDED)!r}\n{TRY_EXCLUDED}"
    environ = clean_environ(("PYTHONPATH",), OPENROUTER_API_KEY="", NLTK_DATA=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
        env=environ, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    outcomes = json.loads(result.stdout.strip().splitlines()[-1])
    for game, reason in EXCLUDED.items():
        (kind,) = [kind for kind in EXPECTED_FAILURE if kind in reason]
        assert all(word in outcomes[game] for word in EXPECTED_FAILURE[kind]), (game, outcomes)


def test_the_hook_plugin_is_declared_and_loads():
    (entry_point,) = [
        ep for ep in entry_points(group="swift_gym.plugins") if ep.value.startswith("swift_gym_t")
    ]
    assert entry_point.value == "swift_gym_textarena.plugin"
    dist = distribution("swift-gym-textarena")
    assert dist.version == swift_gym_textarena.__version__
    assert "textarena==0.7.4" in (dist.requires or [])
    from swift_gym.registry import default_registry

    assert not [p for p in default_registry().problems if "textarena" in p]


@pytest.mark.parametrize(
    "name", ["textarena.GuessTheNumber-v0-hardcore", "textarena.TowerOfHanoi-v0-medium"]
)
def test_eval_oracle_always_succeeds(name, tmp_path):
    out = tmp_path / "oracle.jsonl"
    args = ["eval", name, "--policy", "oracle", "-n", "6", "--max-turns", "40", "-o", str(out)]
    result = swift_gym_command(*args, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 6 and all(record["success"] for record in records)
    assert re.search(r"success rate +1\.000 +6 of 6", result.stdout), result.stdout


def test_eval_random_plays_every_env_in_one_run(tmp_path):
    """One `swift-gym eval --dataset` over a row per listed id (a process per id costs 2 s)."""
    rows = tmp_path / "every_id.jsonl"
    lines = []
    for name in ENV_NAMES:
        seed = 1 if name == "textarena.Sudoku-v0-hard" else 0  # seed 0 takes 13 s to generate
        row = {"messages": [{"role": "user", "content": "play"}], "env_config": {"name": name}}
        row["env_config"]["seed"] = seed
        lines.append(json.dumps(row))
    rows.write_text("\n".join(lines) + "\n")
    out = tmp_path / "random.jsonl"
    args = ["eval", "--dataset", str(rows), "--policy", "random", "--max-turns", "10"]
    result = swift_gym_command(*args, "-o", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(record["env"] for record in records) == sorted(ENV_NAMES)
    assert all(record["status"] != "error" for record in records)
    assert all(record["turns"] for record in records)
    assert re.search(r"failed episodes +0 ", result.stdout), result.stdout


@pytest.mark.parametrize(
    "name", ["textarena.Blackjack-v0", "textarena.Minesweeper-v0-small", "textarena.RushHour-v0"]
)
def test_eval_random_by_name(name, tmp_path):
    out = tmp_path / "random.jsonl"
    args = ["eval", name, "--policy", "random", "-n", "4", "--max-turns", "10", "-o", str(out)]
    result = swift_gym_command(*args, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 4 and all(record["status"] != "error" for record in records)
    assert re.search(r"failed episodes +0 ", result.stdout), result.stdout
