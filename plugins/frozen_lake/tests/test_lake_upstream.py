"""Drop-in for ms-swift's example plugin: its recorded behaviour, replayed reply for reply.

`data/ms_swift_frozen_lake.json` was written by running the example plugin itself (see
`data/README.md`): what it parsed from several hundred replies, whole episodes on many seeds and
sizes (every observation, reward, done and info), and digests of its maps. With
`text_style: ms_swift` and `action_parsing: upstream` swift-gym must reproduce all of it, except
where the plugin raises (lookalike letters): there it must not raise.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import swift_gym
from swift_gym_frozen_lake import FrozenLakeEnv, generate_random_map, parse_action

DATA = json.loads((Path(__file__).parent / "data" / "ms_swift_frozen_lake.json").read_text("utf-8"))
DROP_IN = {"text_style": "ms_swift", "action_parsing": "upstream"}
REPLIES = [entry for entry in DATA["replies"] if "raises" not in entry]
RAISING = [entry["reply"] for entry in DATA["replies"] if "raises" in entry]
EPISODES = DATA["episodes"]


def say(text):
    return [{"role": "user", "content": "your move"}, {"role": "assistant", "content": text}]


def episode_id(episode):
    config = episode["env_config"]
    return f"seed{config['seed']}-size{config.get('size', 4)}-p{config.get('p', 0.8)}"


def test_the_data_covers_the_cases_that_matter():
    statuses = {step["info"]["status"] for episode in EPISODES for step in episode["steps"]}
    assert statuses == {"ok", "goal", "hole", "invalid_action"}
    assert len(REPLIES) >= 500 and len(RAISING) >= 10
    assert {entry["parsed_action"] for entry in REPLIES} == {None, "up", "down", "left", "right"}


def test_upstream_parsing_reads_every_reply_as_the_plugin_does():
    wrong = [
        (entry["reply"][:120], entry["parsed_action"], got)
        for entry in REPLIES
        if (got := parse_action(entry["reply"], "upstream")) != entry["parsed_action"]
    ]
    assert not wrong, f"{len(wrong)} of {len(REPLIES)} differ (reply, plugin, here): {wrong}"


@pytest.mark.parametrize("reply", RAISING)
async def test_replies_the_plugin_raises_on_are_read_without_raising(reply):
    action = parse_action(reply, "upstream")
    assert action in (None, "up", "down", "left", "right")
    env = FrozenLakeEnv({"seed": 0, **DROP_IN})
    await env.reset()
    observation, _, _, info = await env.step(say(reply))
    assert info["parsed_action"] == action
    opening = "Invalid response:" if action is None else f"You moved {action}"
    assert observation.startswith(opening)


def assert_same_info(ours, theirs, where):
    """Every key of the plugin's info is in ours with the plugin's value; ours may hold more."""
    missing = {key: value for key, value in theirs.items() if ours.get(key, object()) != value}
    assert not missing, f"{where}: info differs on {missing}; ours: {ours}"


async def replay(env, episode, compare_text=True):
    observation, info, system_prompt = await env.reset()
    assert env.map == tuple(episode["map"])
    if compare_text:
        assert system_prompt == episode["system_prompt"]
        assert observation == episode["reset"]["observation"]
    assert_same_info(info, episode["reset"]["info"], "reset")
    for turn, recorded in enumerate(episode["steps"], 1):
        observation, reward, done, info = await env.step(say(recorded["reply"]))
        where = f"step {turn}, reply {recorded['reply'][:80]!r}"
        if compare_text:
            assert observation == recorded["observation"], where
        assert (reward, done) == (recorded["reward"], recorded["done"]), where
        assert_same_info(info, recorded["info"], where)


@pytest.mark.parametrize("episode", EPISODES, ids=[episode_id(e) for e in EPISODES])
async def test_drop_in_config_replays_the_plugin_byte_for_byte(episode):
    await replay(FrozenLakeEnv({**episode["env_config"], **DROP_IN}), episode)


async def test_the_registered_name_with_the_drop_in_config_replays_too():
    for episode in EPISODES[:10]:
        env = swift_gym.make({"name": "frozen_lake", **episode["env_config"], **DROP_IN})
        await replay(env, episode)


async def test_frozen_lake_ms_swift_plays_the_examples_rows_unchanged():
    """The example's rows carry only seed/size/p: `frozen_lake_ms_swift` needs nothing more."""
    for episode in EPISODES:
        assert set(episode["env_config"]) <= {"seed", "size", "p"}
        await replay(
            swift_gym.make({"name": "frozen_lake_ms_swift", **episode["env_config"]}), episode
        )


def test_frozen_lake_ms_swift_still_refuses_what_its_words_cannot_say():
    with pytest.raises(swift_gym.InvalidConfigError, match="text_style"):
        swift_gym.make({"name": "frozen_lake_ms_swift", "is_slippery": True})
    env = swift_gym.make({"name": "frozen_lake_ms_swift", "text_style": "swift_gym"})
    assert env.config.text_style == "swift_gym" and env.config.action_parsing == "upstream"


@pytest.mark.parametrize("episode", EPISODES[::5], ids=[episode_id(e) for e in EPISODES[::5]])
async def test_swift_gym_text_plays_the_same_episodes(episode):
    """The text style changes words only: rewards, done and info stay the plugin's."""
    env = FrozenLakeEnv({**episode["env_config"], "action_parsing": "upstream"})
    await replay(env, episode, compare_text=False)


@pytest.mark.parametrize("group", DATA["maps"], ids=[f"{g['size']}-{g['p']}" for g in DATA["maps"]])
def test_maps_are_the_plugins_for_the_same_seed_size_and_p(group):
    digest = hashlib.sha256()
    for seed in range(*group["seeds"]):
        rows = generate_random_map(group["size"], group["p"], seed)
        digest.update(("/".join(rows) + "\n").encode())
    assert digest.hexdigest() == group["sha256"]
