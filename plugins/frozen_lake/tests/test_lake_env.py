"""FrozenLakeEnv episodes: dynamics, rewards, statuses, info, observations and slippery ice."""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swift_gym_frozen_lake import SYSTEM_PROMPT, FrozenLakeEnv, solve
from swift_gym_frozen_lake.env import SLIPS

STEP_KEYS = {
    "status",
    "action",
    "parsed_action",
    "seed",
    "actual_action",
    "position",
    "step",
    "optimal_steps",
    "slipped",
    "metrics",
}


def say(text):
    return [{"role": "user", "content": "your move"}, {"role": "assistant", "content": text}]


def act(action):
    return say(f"<action>{action}</action>")


def check_step(result):
    """Shape checks every step must pass; returns the result unchanged."""
    observation, reward, done, info = result
    assert isinstance(observation, str) and observation.isascii()
    assert type(reward) is float
    assert type(done) is bool
    assert set(info) == STEP_KEYS
    assert set(info["metrics"]) == {"success", "valid_action", "moved"}
    assert json.loads(json.dumps(info)) == info
    return result


@pytest.mark.asyncio
async def test_reset_returns_observation_info_and_system_prompt():
    env = FrozenLakeEnv({"seed": 0})
    observation, info, system = await env.reset()
    assert system == SYSTEM_PROMPT
    assert info == {
        "status": "reset",
        "position": [1, 2],
        "step": 0,
        "map": ["GFFF", "FFSF", "FFHF", "FFFF"],
        "optimal_steps": 3,
        "seed": 0,
        "size": 4,
    }
    assert json.loads(json.dumps(info)) == info
    assert observation.isascii()
    assert "G F F F\nF F P F\nF F H F\nF F F F" in observation
    assert observation.endswith("You are at row 1, col 2.")


def test_system_prompt_states_rules_and_format():
    for phrase in (
        "S = start",
        "F = frozen",
        "H = hole",
        "G = goal",
        "up, down, left or right",
        "leave the grid keeps you where you are",
        "hole ends the episode",
        "goal G ends the episode with reward 1",
        "<action>up</action>",
        "<action>right</action>",
    ):
        assert phrase in SYSTEM_PROMPT
    assert SYSTEM_PROMPT.isascii()


@pytest.mark.asyncio
async def test_system_prompt_follows_the_config():
    env = FrozenLakeEnv({"goal_reward": 10, "is_slippery": True, "max_steps": 7})
    _, _, system = await env.reset()
    assert "reward 10" in system and "slippery" in system and "at most 7 moves" in system


@pytest.mark.asyncio
@pytest.mark.parametrize("seed", range(25))
async def test_following_solve_reaches_the_goal_in_optimal_steps(seed):
    env = FrozenLakeEnv({"size": 6, "p": 0.7, "seed": seed})
    _, info, _ = await env.reset()
    path = solve(info["map"])
    assert len(path) == info["optimal_steps"]
    for k, action in enumerate(path, start=1):
        observation, reward, done, step_info = check_step(await env.step(act(action)))
        assert step_info["step"] == k
        assert step_info["action"] == action
        assert step_info["metrics"]["valid_action"] == 1.0
        assert step_info["metrics"]["moved"] == 1.0
        assert step_info["optimal_steps"] == len(path)
        if k < len(path):
            assert (reward, done, step_info["status"]) == (0.0, False, "ok")
            assert f"You moved {action}." in observation
    assert (reward, done, step_info["status"]) == (1.0, True, "goal")
    assert step_info["step"] == info["optimal_steps"]
    assert step_info["metrics"]["success"] == 1.0
    assert "You reached the goal. The episode is over." in observation


@pytest.mark.asyncio
@pytest.mark.parametrize("seed", range(10))
async def test_oracle_policy_is_optimal(seed):
    env = FrozenLakeEnv({"size": 8, "p": 0.7, "seed": seed})
    await env.reset()
    done, steps = False, 0
    while not done:
        _, reward, done, info = await env.step(act(env.oracle_action()))
        steps += 1
    assert info["status"] == "goal" and reward == 1.0
    assert steps == env.optimal_steps == info["optimal_steps"]
    with pytest.raises(RuntimeError, match="episode is over"):
        env.oracle_action()


@pytest.mark.asyncio
async def test_hole_ends_the_episode_with_hole_reward():
    env = FrozenLakeEnv({"map": "SH/FG"})
    await env.reset()
    observation, reward, done, info = check_step(await env.step(act("right")))
    assert (reward, done, info["status"]) == (0.0, True, "hole")
    assert info["position"] == [0, 1]
    assert info["metrics"] == {"success": 0.0, "valid_action": 1.0, "moved": 1.0}
    assert "You fell into a hole. The episode is over." in observation
    assert "S P\nF G" in observation


@pytest.mark.asyncio
@pytest.mark.parametrize(("action", "blocked"), [("up", True), ("left", True), ("down", False)])
async def test_off_grid_moves_stay_in_place(action, blocked):
    env = FrozenLakeEnv({"map": "SF/FG"})
    await env.reset()
    observation, reward, done, info = check_step(await env.step(act(action)))
    assert info["status"] == "ok" and not done and reward == 0.0
    assert info["metrics"]["valid_action"] == 1.0
    if blocked:
        assert info["position"] == [0, 0]
        assert info["metrics"]["moved"] == 0.0
        assert "the edge stops you; you stay in place" in observation
    else:
        assert info["position"] == [1, 0]
        assert info["metrics"]["moved"] == 1.0


@pytest.mark.asyncio
async def test_invalid_action_gets_its_reward_and_a_hint():
    env = FrozenLakeEnv({"map": "SF/FG", "invalid_action_reward": -0.5})
    await env.reset()
    observation, reward, done, info = check_step(await env.step(say("I go up")))
    assert (reward, done, info["status"]) == (-0.5, False, "invalid_action")
    assert info["action"] is None and info["actual_action"] is None
    assert info["metrics"] == {"success": 0.0, "valid_action": 0.0, "moved": 0.0}
    assert info["position"] == [0, 0] and info["step"] == 1
    assert observation.startswith("No valid action found: the reply has no <action>")
    assert "Answer with exactly one of <action>up</action>" in observation
    assert observation.endswith("You are at row 0, col 0.")
    # the episode goes on
    _, reward, done, info = await env.step(act("right"))
    assert info["status"] == "ok" and info["step"] == 2 and info["position"] == [0, 1]


@pytest.mark.asyncio
async def test_upstream_mode_reads_bare_words():
    env = FrozenLakeEnv({"map": "SF/FG", "action_parsing": "upstream"})
    await env.reset()
    _, _, _, info = await env.step(say("let me set this up... I'll go down"))
    assert info["action"] == "down" and info["position"] == [1, 0]
    default = FrozenLakeEnv({"map": "SF/FG"})
    _, _, _, info = await default.step(say("set up"))
    assert info["status"] == "invalid_action"


@pytest.mark.asyncio
async def test_single_tag_mode_refuses_several_tags():
    env = FrozenLakeEnv({"map": "SF/FG", "action_parsing": "single_tag"})
    observation, _, _, info = await env.step(say("<action>down</action><action>right</action>"))
    assert info["status"] == "invalid_action"
    assert "2 <action> tags; give exactly one" in observation


@pytest.mark.asyncio
async def test_exact_mode_refuses_text_besides_the_tag_and_stays_put():
    env = FrozenLakeEnv({"map": "SF/FG", "action_parsing": "exact", "invalid_action_reward": -0.1})
    await env.reset()
    observation, reward, done, info = await env.step(say("<action>down</action> now"))
    assert (info["status"], info["action"], reward, done) == ("invalid_action", None, -0.1, False)
    assert info["position"] == [0, 0]
    assert "give the tag alone" in observation
    _, reward, done, info = await env.step(say(" <action>down</action>\n"))
    assert (info["status"], info["action"], info["position"]) == ("ok", "down", [1, 0])


@pytest.mark.asyncio
async def test_max_steps_ends_the_episode_and_counts_invalid_steps():
    env = FrozenLakeEnv({"map": "SFF/FFF/FFG", "max_steps": 3, "step_reward": -0.1})
    await env.reset()
    results = [await env.step(act("up")), await env.step(say("???")), await env.step(act("right"))]
    statuses = [info["status"] for *_, info in results]
    assert statuses == ["ok", "invalid_action", "max_steps"]
    assert [done for _, _, done, _ in results] == [False, False, True]
    assert [reward for _, reward, _, _ in results] == [-0.1, 0.0, -0.1]
    observation, _, _, info = results[-1]
    assert info["step"] == 3 and info["metrics"]["success"] == 0.0
    assert "The step limit of 3 moves is reached. The episode is over." in observation
    _, reward, done, info = await env.step(act("down"))
    assert (reward, done, info["status"]) == (0.0, True, "episode_over")


@pytest.mark.asyncio
async def test_goal_on_the_last_allowed_step_is_a_goal():
    env = FrozenLakeEnv({"map": "SG/FF", "max_steps": 1})
    _, reward, done, info = await env.step(act("right"))
    assert (reward, done, info["status"]) == (1.0, True, "goal")


@pytest.mark.asyncio
async def test_step_after_the_end_is_episode_over_and_reset_restarts():
    env = FrozenLakeEnv({"map": "SG/FF", "goal_reward": 2.5})
    await env.reset()
    _, reward, done, _ = await env.step(act("right"))
    assert (reward, done) == (2.5, True)
    for _ in range(3):
        observation, reward, done, info = check_step(await env.step(act("left")))
        assert (reward, done, info["status"]) == (0.0, True, "episode_over")
        assert info["step"] == 1 and info["action"] is None
        assert info["metrics"]["success"] == 1.0
        assert observation.startswith("The episode is over")
    _, info, _ = await env.reset()
    assert info["position"] == [0, 0] and info["step"] == 0
    assert env.map == ("SG", "FF") and not env.done
    _, reward, done, info = await env.step(act("right"))
    assert (reward, done, info["step"]) == (2.5, True, 1)


@pytest.mark.asyncio
async def test_step_before_reset_works():
    env = FrozenLakeEnv({"seed": 1})  # FHFF / SFFF / GFHF / FFFF
    _, reward, done, info = check_step(await env.step(act("down")))
    assert (reward, done, info["status"], info["position"]) == (1.0, True, "goal", [2, 0])


@pytest.mark.asyncio
async def test_reset_keeps_the_map_even_without_a_seed():
    env = FrozenLakeEnv({"size": 5})
    _, first, _ = await env.reset()
    _, second, _ = await env.reset()
    assert first["map"] == second["map"] == list(env.map)
    assert first["seed"] is None


@pytest.mark.asyncio
async def test_custom_rewards_are_applied_exactly():
    config = {"map": "SFH/FFF/FFG", "goal_reward": 3.0, "hole_reward": -2.0, "step_reward": -0.25}
    env = FrozenLakeEnv({**config, "invalid_action_reward": -1.0})
    rewards = [(await env.step(act(a)))[1] for a in ("right", "down", "nope", "down", "right")]
    assert rewards == [-0.25, -0.25, -1.0, -0.25, 3.0]
    env = FrozenLakeEnv(config)
    rewards = [(await env.step(act(a)))[1] for a in ("right", "right")]
    assert rewards == [-0.25, -2.0]


WEIRD_MESSAGES = [
    [],
    (),
    None,
    "plain <action>down</action>",
    "",
    42,
    {"role": "assistant", "content": "<action>down</action>"},
    [None],
    [{"role": "assistant", "content": None}],
    [{"role": "assistant", "content": ""}],
    [{"role": "assistant"}],
    [{"role": "user", "content": "<action>down</action>"}],
    [{"role": "assistant", "content": 7}],
    [{"role": "assistant", "content": {"text": "<action>down</action>"}}],
    [{"role": "assistant", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}],
    [{"role": "assistant", "content": [{"type": "text", "text": "<action>down</action>"}]}],
    [{"role": "assistant", "content": "x" * (10 * 1024 * 1024) + "<action>down</action>"}],
    [{"role": "assistant", "content": "<" * (10 * 1024 * 1024)}],
    [{"role": "assistant", "content": "<action>\u00e9\u4e2d</action>"}],
]


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["first_tag", "last_tag", "single_tag", "exact", "upstream"])
async def test_step_never_raises_on_odd_input(mode):
    for messages in WEIRD_MESSAGES:
        env = FrozenLakeEnv({"map": "SF/FG", "action_parsing": mode})
        observation, _, _, info = check_step(await env.step(messages))
        assert info["status"] in {"ok", "invalid_action"}
        assert info["action"] in {None, "down"}
        assert len(observation) < 1000


@pytest.mark.asyncio
async def test_plain_string_and_content_parts_are_actions():
    env = FrozenLakeEnv({"map": "SFF/FFF/FFG"})
    _, _, _, info = await env.step("<action>down</action>")
    assert info["action"] == "down"
    parts = [{"type": "text", "text": "ok"}, {"type": "text", "text": "<action>right</action>"}]
    _, _, _, info = await env.step([{"role": "assistant", "content": parts}])
    assert info["action"] == "right" and info["position"] == [1, 1]


@settings(max_examples=40, deadline=None)
@given(
    replies=st.lists(
        st.one_of(
            st.sampled_from(["up", "down", "left", "right", "jump"]).map(
                lambda a: f"<action>{a}</action>"
            ),
            st.text(max_size=30),
            st.none(),
        ),
        max_size=25,
    ),
    slippery=st.booleans(),
    seed=st.integers(0, 1000),
)
def test_random_play_keeps_every_invariant(replies, slippery, seed):
    async def play():
        env = FrozenLakeEnv({"seed": seed, "is_slippery": slippery, "max_steps": 20})
        _, info, _ = await env.reset()
        assert json.dumps(info)
        done = False
        for k, reply in enumerate(replies, start=1):
            was_done = done
            _, reward, done, info = check_step(
                await env.step([{"role": "assistant", "content": reply}])
            )
            if was_done:
                assert info["status"] == "episode_over" and reward == 0.0 and done
                continue
            assert info["step"] == k
            expected = {"ok": 0.0, "invalid_action": 0.0, "goal": 1.0, "hole": 0.0}
            if info["status"] in expected:
                assert reward == expected[info["status"]]
            assert done == (info["status"] in {"goal", "hole", "max_steps"})
            assert info["slipped"] == (info["actual_action"] != info["action"])
            if not slippery:
                assert not info["slipped"]

    asyncio.run(play())


async def trajectory(env, actions):
    steps = [await env.reset()]
    for action in actions:
        steps.append(await env.step(act(action)))
    return steps


OPEN = "FFFFF/FFFFF/FFSFF/FFFFF/FFFFG"
ROUTE = ["up", "left", "down", "right", "right", "down", "up", "left", "down", "right"] * 2


@pytest.mark.asyncio
async def test_slippery_same_seed_same_trajectory():
    config = {"map": OPEN, "is_slippery": True, "seed": 11}
    first = await trajectory(FrozenLakeEnv(config), ROUTE)
    assert first == await trajectory(FrozenLakeEnv(config), ROUTE)
    env = FrozenLakeEnv(config)
    assert await trajectory(env, ROUTE) == await trajectory(env, ROUTE)  # reset replays
    others = [await trajectory(FrozenLakeEnv({**config, "seed": s}), ROUTE) for s in range(12, 20)]
    assert any(other != first for other in others)
    assert any(step[3]["slipped"] for step in first[1:])


@pytest.mark.asyncio
async def test_slippery_without_seed_still_plays():
    env = FrozenLakeEnv({"map": OPEN, "is_slippery": True})
    for step in (await trajectory(env, ROUTE))[1:]:
        check_step(step)


@pytest.mark.asyncio
@pytest.mark.parametrize("action", ["up", "down", "left", "right"])
async def test_slippery_moves_are_one_third_each_and_never_backwards(action):
    n = 3000
    counts: Counter[str] = Counter()
    for seed in range(n):
        env = FrozenLakeEnv({"map": "FFF/FSF/FFG", "is_slippery": True, "seed": seed})
        _, _, _, info = await env.step(act(action))
        deltas = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
        dr, dc = deltas[info["actual_action"]]
        assert info["position"] == [1 + dr, 1 + dc]
        assert info["slipped"] == (info["actual_action"] != action)
        counts[info["actual_action"]] += 1
    left, intended, right = SLIPS[action]
    assert intended == action
    opposite = ({"up", "down", "left", "right"} - set(SLIPS[action])).pop()
    assert counts[opposite] == 0
    for direction in (left, intended, right):
        assert abs(counts[direction] / n - 1 / 3) < 0.04, counts  # > 4 standard deviations


@pytest.mark.asyncio
async def test_global_random_state_is_untouched():
    random.seed(99)
    state = random.getstate()
    for config in ({"size": 7, "p": 0.7, "seed": 3}, {"size": 7}, {"is_slippery": True, "seed": 5}):
        env = FrozenLakeEnv(config)
        await env.reset()
        for action in ROUTE:
            await env.step(act(action))
            if env.done:
                await env.reset()
        await env.close()
    assert random.getstate() == state


@pytest.mark.asyncio
async def test_observation_grid_marks_the_player_and_the_position_line():
    env = FrozenLakeEnv({"map": "SFF/FHF/FFG"})
    observation, _, _ = await env.reset()
    assert observation == (
        "A new episode starts. Reach G without falling into a hole.\n\n"
        "P F F\nF H F\nF F G\n\nYou are at row 0, col 0."
    )
    observation, *_ = await env.step(act("right"))
    assert observation == "You moved right.\n\nS P F\nF H F\nF F G\n\nYou are at row 0, col 1."


@pytest.mark.asyncio
async def test_slip_is_described():
    for seed in range(50):
        env = FrozenLakeEnv({"map": OPEN, "is_slippery": True, "seed": seed})
        observation, _, _, info = await env.step(act("up"))
        if info["slipped"]:
            assert observation.startswith(
                f"You tried to move up, but slipped and moved {info['actual_action']}."
            )
            return
    pytest.fail("no slip in 50 seeds")


@pytest.mark.asyncio
async def test_close_is_idempotent():
    env = FrozenLakeEnv({})
    await env.close()
    await env.close()


@pytest.mark.asyncio
async def test_distance_reward_pays_each_step_nearer_to_g_and_charges_each_step_away():
    """Classic map: G is 6 steps from S around the holes. Nearer +k, away -k, a bump and a
    hole earn none of it; the shortest path earns 6k on top of the goal."""
    config = {"map": "SFFF/FHFH/FFFH/HFFG", "distance_reward": 0.25, "hole_reward": -1.0}
    env = FrozenLakeEnv(config)
    moves = ("up", "down", "up", "down", "down", "right", "down", "right", "right")
    rewards = [(await env.step(act(a)))[1] for a in moves]
    assert rewards == [0.0, 0.25, -0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 1.25]
    assert env.done
    env = FrozenLakeEnv(config)
    rewards = [(await env.step(act(a)))[1] for a in ("right", "down")]
    assert rewards == [0.25, -1.0]  # (0,1) is 5 steps from G; then into the hole at (1,1)
