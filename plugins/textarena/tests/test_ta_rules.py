"""Observations, invalid moves, rewards, hostile replies, configs and the oracles, per rule."""

from __future__ import annotations

import random

import pytest

import swift_gym
from swift_gym import InvalidConfigError
from swift_gym_textarena import TextArenaGameError
from swift_gym_textarena.games import env_class


def say(text):
    return [{"role": "assistant", "content": text}]


async def test_current_observation_shows_the_new_board_not_the_history():
    env = swift_gym.make("textarena.TowerOfHanoi-v0", seed=0)
    observation, info, system = await env.reset()
    assert "Tower of Hanoi" in system and "Tower of Hanoi" not in observation
    assert "A: [3, 2, 1]" in observation and info["status"] == "reset"
    observation, reward, done, info = await env.step(say("[A C]"))
    assert "You moved disk 1 from A to C." in observation
    assert "A: [3, 2]" in observation and "A: [3, 2, 1]" not in observation
    assert (reward, done, info["status"]) == (0.0, False, "ok")


async def test_history_observation_keeps_every_message():
    env = swift_gym.make("textarena.TowerOfHanoi-v0", seed=0, observation="history")
    await env.reset()
    observation, *_ = await env.step(say("[A C]"))
    assert "A: [3, 2, 1]" in observation and "A: [3, 2]" in observation


async def test_a_message_without_a_board_repeats_the_last_board():
    env = swift_gym.make("textarena.TowerOfHanoi-v0", seed=0)
    await env.reset()
    observation, _reward, done, info = await env.step(say("no move here"))
    assert info["status"] == "invalid_action" and not done
    assert "invalid move" in observation and "A: [3, 2, 1]" in observation
    assert info["metrics"]["valid_action"] == 0.0


async def test_two_invalid_moves_in_a_row_end_the_game_with_its_reward():
    env = swift_gym.make("textarena.GuessTheNumber-v0", seed=0)
    await env.reset()
    await env.step(say("[0]"))  # outside the range
    _observation, reward, done, info = await env.step(say("hello"))
    assert done and info["status"] == "invalid_action"
    assert info["ended_by_invalid_move"] and info["metrics"]["success"] == 0.0
    assert reward == info["game_reward"] == 0.0
    assert (await env.step(say("[3]")))[3]["status"] == "episode_over"


async def test_a_reward_that_is_not_a_number_counts_zero_and_is_recorded():
    # ThreeCardMonte passes set_invalid_move its arguments swapped: the reward is a string.
    env = swift_gym.make("textarena.ThreeCardMonte-v0", seed=0)
    await env.reset()
    await env.step(say("x"))
    _, reward, done, info = await env.step(say("y"))
    assert done and reward == 0.0 and "reward_not_a_number" in info


@pytest.mark.parametrize(
    ("name", "replies"),
    [("textarena.GuessTheNumber-v0", 10), ("textarena.TowerOfHanoi-v0-hard", 31)],
)
async def test_the_oracle_wins(name, replies):
    for seed in range(5):
        env = swift_gym.make(name, seed=seed)
        await env.reset()
        moves, done = 0, False
        while not done and moves < replies:
            _, reward, done, info = await env.step(say(env.oracle_reply()))
            moves += 1
        assert done and reward == 1.0 and info["metrics"]["success"] == 1.0, (seed, moves)
    if name.endswith("hard"):
        assert moves == 31  # 2**5 - 1 moves: optimal


def test_games_without_a_solver_have_no_oracle():
    with pytest.raises(NotImplementedError):
        env_class("Sudoku-v0").oracle_reply(object())


HOSTILE = [
    "",
    "\ud800[1]",
    "[" * 5000,
    "[1]" * 2000,
    "\x00[2]",
    "[99999999999999999999]",
    "é" * 100,
]


@pytest.mark.parametrize(
    "name", ["textarena.Countdown-v0", "textarena.Sudoku-v0", "textarena.Set-v0"]
)
async def test_hostile_replies_never_crash(name):
    env = swift_gym.make(name, seed=1)
    await env.reset()
    for reply in [*HOSTILE, None, [{"type": "image"}], 12]:
        msgs = [{"role": "assistant", "content": reply}]
        observation, _reward, done, info = await env.step(msgs)
        assert isinstance(observation, str) and info["status"]
        if done:
            await env.reset()


async def test_a_reply_over_the_bound_is_refused_without_calling_the_game():
    env = swift_gym.make("textarena.GuessTheNumber-v0", seed=0, max_reply_chars=10)
    await env.reset()
    for _ in range(3):  # not the game's error allowance: it is never called
        observation, _reward, done, info = await env.step(say("[5]" + " " * 20))
        assert info["status"] == "invalid_action" and not done and "at most 10" in observation


async def test_a_game_that_hangs_is_a_clear_error_for_its_episode(monkeypatch):
    import time

    env = swift_gym.make("textarena.GuessTheNumber-v0", seed=0, call_timeout=0.2)
    await env.reset()
    monkeypatch.setattr(env._game, "step", lambda action: time.sleep(1))
    with pytest.raises(TextArenaGameError, match=r"no answer within 0\.2 s"):
        await env.step(say("[5]"))
    with pytest.raises(TextArenaGameError, match="failed earlier"):
        await env.step(say("[5]"))
    await env.reset()  # a new game
    assert (await env.step(say("[5]")))[3]["status"] in {"ok", "game_over"}


@pytest.mark.parametrize(
    ("name", "config", "field"),
    [
        ("textarena.GuessTheNumber-v0", {"min_number": 30}, "min_number must be smaller"),
        ("textarena.Minesweeper-v0", {"num_mines": 40}, "at most half"),
        ("textarena.Sudoku-v0", {"clues": 5}, "clues"),
        ("textarena.Sudoku-v0", {"clue": 30}, "did you mean"),
        ("textarena.2048-v0", {"target_tile": 100}, "power of two"),
        ("textarena.Cryptarithm-v0", {"equation": "ABCDE + FGHIJ = KLMNO"}, "letters"),
        ("textarena.Bandit-v0", {"buttons": ["Red", "x"]}, "buttons"),
        ("textarena.Set-v0", {"seed": -1}, "seed"),
        ("textarena.TowerOfHanoi-v0", {"max_turns": "9"}, "max_turns"),
    ],
)
def test_bad_configs_are_refused_naming_the_field(name, config, field):
    with pytest.raises(InvalidConfigError) as error:
        swift_gym.make(name, **config)
    assert field.lower() in str(error.value).lower()


async def test_a_config_changes_the_game():
    env = swift_gym.make("textarena.GuessTheNumber-v0", seed=0, min_number=5, max_number=6)
    _, _, system = await env.reset()
    assert "between 5 and 6" in system


def test_the_random_policy_has_moves_in_the_game_format():
    env = swift_gym.make("textarena.Blackjack-v0")
    assert set(env.sample_replies()) == {"[Hit]", "[Stand]"}
    assert random.choice(env.sample_replies()).startswith("[")


async def test_a_refused_move_repeats_a_state_shown_as_messages():
    env = swift_gym.make("textarena.Blackjack-v0", seed=0)
    observation, _, _ = await env.reset()
    assert "Your hand:" in observation
    refused, *_ = await env.step(say("[Fold]"))
    assert "invalid move" in refused and "Your hand:" in refused
    assert refused.endswith(observation)


def test_each_id_config_defaults_to_what_textarena_registers():
    from swift_gym_textarena.ids import GAME_IDS

    for ids in GAME_IDS.values():
        for ta_id, registered in ids.items():
            config = env_class(ta_id).config_model()
            assert config.game_kwargs() == dict(sorted(registered.items())), ta_id
    tuned = env_class("Sudoku-v0-hard").config_model(clues=30)
    assert tuned.game_kwargs() == {"clues": 30, "max_turns": 100}


@pytest.mark.parametrize(
    "name", ["textarena.TowerOfHanoi-v0-medium", "textarena.TowerOfHanoi-v0-hard"]
)
def test_the_games_turn_limit_is_evals_default_so_the_oracle_finishes(name):
    result = swift_gym.evaluate(name, "oracle", episodes=2)  # 15 and 31 moves: past 10
    assert result.success_rate == 1.0 and result.cut_off == 0
    env = swift_gym.make(name)
    assert env.max_turns_hint() == 2 * env.config.resolved()["max_turns"]  # a retry each
    assert swift_gym.make(name, max_turns=3).max_turns_hint() == 6


def test_a_game_without_a_turn_limit_leaves_evals_default():
    assert swift_gym.make("textarena.2048-v0").max_turns_hint() is None
