"""The two text styles, read as a person would: the README's side-by-side examples, exactly.

The plugin's recorded texts on many episodes are checked in test_lake_upstream.py; here each
kind of observation of `text_style: ms_swift` is spelled out once, next to swift-gym's.
"""

from __future__ import annotations

import pytest

from swift_gym_frozen_lake import SYSTEM_PROMPT, FrozenLakeEnv
from swift_gym_frozen_lake.ms_swift_text import SYSTEM_PROMPT as MS_SWIFT_PROMPT

GRID = "G F F F\nF F P F\nF F H F\nF F F F"
"""Seed 0's map (the same in both styles and in ms-swift's plugin), player at S."""


def say(text):
    return [{"role": "assistant", "content": text}]


async def play(style, replies, **config):
    env = FrozenLakeEnv({"seed": 0, "text_style": style, "action_parsing": "upstream", **config})
    observation, _, system_prompt = await env.reset()
    results = [await env.step(say(reply)) for reply in replies]
    return system_prompt, observation, results


async def test_the_default_style_is_swift_gyms():
    system_prompt, observation, _ = await play("swift_gym", [])
    assert (await FrozenLakeEnv({"seed": 0}).reset())[0] == observation
    assert system_prompt == SYSTEM_PROMPT
    assert observation == (
        "A new episode starts. Reach G without falling into a hole.\n\n"
        f"{GRID}\n\nYou are at row 1, col 2."
    )


async def test_ms_swift_reset_and_system_prompt():
    system_prompt, observation, _ = await play("ms_swift", [])
    assert system_prompt == MS_SWIFT_PROMPT
    assert system_prompt.startswith("You are playing FrozenLake. You see a grid where:\n")
    assert system_prompt.endswith("Example: <action>down</action>")
    assert observation == (
        f"FrozenLake 4x4:\n{GRID}\n\nYou are at row 1, col 2. Output your first move."
    )


async def test_ms_swift_moves_edges_goal_invalid_and_the_end():
    replies = ["<action>left</action>", "up", "<action>up</action>", "hmm", "left", "left"]
    _, _, results = await play("ms_swift", replies)
    observations = [observation for observation, *_ in results]
    assert observations == [
        "You moved left. Now at row 1, col 1 (step 1).\n"
        "G F F F\nF P S F\nF F H F\nF F F F\nOutput your next move.",
        "You moved up. Now at row 0, col 1 (step 2).\n"
        "G P F F\nF F S F\nF F H F\nF F F F\nOutput your next move.",
        # the edge stops the move, and the plugin says it as a move
        "You moved up. Now at row 0, col 1 (step 3).\n"
        "G P F F\nF F S F\nF F H F\nF F F F\nOutput your next move.",
        "Invalid response: could not find a move. Reply with "
        "<action>up|down|left|right</action>.\n\nG P F F\nF F S F\nF F H F\nF F F F",
        "You moved left and reached the goal!\n* F F F\nF F S F\nF F H F\nF F F F",
        "The episode is over; no more moves are taken. Start a new episode.\n"
        "* F F F\nF F S F\nF F H F\nF F F F",
    ]
    assert [(reward, done) for _, reward, done, _ in results] == [
        (0.0, False),
        (0.0, False),
        (0.0, False),
        (0.0, False),
        (1.0, True),
        (0.0, True),
    ]
    assert [info["step"] for *_, info in results] == [1, 2, 3, 4, 5, 5]


async def test_ms_swift_hole():
    _, _, results = await play("ms_swift", ["down"])
    observation, reward, done, info = results[0]
    assert observation == (
        "You moved down and fell into a hole. Episode over.\nG F F F\nF F S F\nF F P F\nF F F F"
    )
    assert (reward, done, info["status"]) == (0.0, True, "hole")


async def test_swift_gym_style_says_the_same_steps_its_own_way():
    replies = ["<action>left</action>", "up", "<action>up</action>", "hmm", "left"]
    _, _, results = await play("swift_gym", replies)
    assert [observation.split("\n")[0] for observation, *_ in results] == [
        "You moved left.",
        "You moved up.",
        "You tried to move up, but the edge stops you; you stay in place.",
        "No valid action found: the reply has no <action> tag and no direction word. Answer "
        "with exactly one of <action>up</action>, <action>down</action>, <action>left</action> "
        "or <action>right</action>.",
        "You moved left. You reached the goal. The episode is over.",
    ]


@pytest.mark.parametrize("style", ["swift_gym", "ms_swift"])
async def test_info_carries_the_plugins_keys_in_both_styles(style):
    env = FrozenLakeEnv({"seed": 0, "text_style": style})
    _, info, _ = await env.reset()
    assert (info["seed"], info["size"]) == (0, 4)
    *_, info = await env.step(say("<action>left</action>"))
    assert {key: info[key] for key in ("seed", "step", "parsed_action", "status")} == {
        "seed": 0,
        "step": 1,
        "parsed_action": "left",
        "status": "ok",
    }
    *_, info = await env.step(say("no move"))
    assert (info["parsed_action"], info["status"]) == (None, "invalid_action")


async def test_ms_swift_style_with_reward_fields_keeps_the_plugins_words():
    _, _, results = await play("ms_swift", ["down"], hole_reward=-1.0, step_reward=-0.1)
    observation, reward, *_ = results[0]
    assert observation.startswith("You moved down and fell into a hole. Episode over.\n")
    assert reward == -1.0
