"""The game's rules: feedback, rewards, the end of an episode, seeds and the config."""

from __future__ import annotations

import asyncio
import math

import pytest

from swift_gym import InvalidConfigError
from {{ cookiecutter.__package }} import {{ cookiecutter.__class }}Env, parse_guess


def say(text):
    return [{"role": "user", "content": "Your guess?"}, {"role": "assistant", "content": text}]


def play(env, replies):
    """Reset, then send each reply until the episode ends: the list of step results."""

    async def run():
        await env.reset()
        results = []
        for reply in replies:
            results.append(await env.step(say(reply)))
            if results[-1][2]:
                break
        return results

    return asyncio.run(run())


def solve(env):
    """Play the halving strategy the env's oracle suggests, to the end."""

    async def run():
        await env.reset()
        results = []
        while not (results and results[-1][2]):
            results.append(await env.step(say(env.oracle_reply())))
        return results

    return asyncio.run(run())


@pytest.mark.parametrize(
    ("text", "guess"),
    [
        ("<answer>42</answer>", 42),
        ("I think < Answer > -7 </answer >.", -7),
        ("<answer>+3</answer><answer>9</answer>", 3),
        ("<answer>forty</answer>", None),
        ("42", None),
        ("", None),
        ("<answer>1234567890</answer>", None),
    ],
)
def test_parse_guess(text, guess):
    assert parse_guess(text) == guess


def test_halving_finds_the_number_within_log2_guesses():
    for seed in range(20):
        results = solve({{ cookiecutter.__class }}Env({"seed": seed, "max_guesses": 20}))
        observation, reward, done, info = results[-1]
        assert (reward, done, info["status"]) == (1.0, True, "correct")
        assert info["metrics"] == {"success": 1.0, "valid_action": 1.0}
        assert len(results) <= math.ceil(math.log2(100)) + 1


def test_feedback_points_to_the_number():
    results = solve({{ cookiecutter.__class }}Env({"seed": 5, "max_guesses": 20}))
    secret = results[-1][3]["guess"]
    for _, reward, _, info in results[:-1]:
        assert reward == 0.0
        assert info["status"] == ("higher" if info["guess"] < secret else "lower")


def test_a_reply_without_an_answer_is_invalid_and_counts():
    env = {{ cookiecutter.__class }}Env({"seed": 1, "invalid_reward": -0.5, "max_guesses": 3})
    observation, reward, done, info = play(env, ["hmm"])[0]
    assert (reward, done, info["status"], info["guesses"]) == (-0.5, False, "invalid", 1)
    assert info["metrics"]["valid_action"] == 0.0
    assert "<answer>NUMBER</answer>" in observation


def test_the_episode_ends_when_the_guesses_run_out():
    env = {{ cookiecutter.__class }}Env({"seed": 2, "low": 1, "high": 1000, "max_guesses": 2})
    results = play(env, ["<answer>0</answer>", "<answer>0</answer>", "<answer>0</answer>"])
    assert len(results) == 2
    observation, reward, done, info = results[-1]
    assert (reward, done, info["status"]) == (0.0, True, "out_of_guesses")
    assert "No guesses left: the number was" in observation


def test_after_the_end_steps_change_nothing():
    env = {{ cookiecutter.__class }}Env({"seed": 3, "max_guesses": 1})
    play(env, ["<answer>0</answer>"])
    observation, reward, done, info = asyncio.run(env.step(say("<answer>1</answer>")))
    assert (reward, done, info["status"]) == (0.0, True, "game_over")


def test_the_same_seed_gives_the_same_number():
    def secret(seed):
        return solve({{ cookiecutter.__class }}Env({"seed": seed, "max_guesses": 20}))[-1][3]["guess"]

    assert secret(11) == secret(11)
    assert len({secret(seed) for seed in range(10)}) > 1


def test_reset_returns_the_rules():
    env = {{ cookiecutter.__class }}Env({"low": -5, "high": 5, "max_guesses": 4})
    observation, info, system_prompt = asyncio.run(env.reset())
    assert "between -5 and 5" in observation
    assert info == {"status": "reset", "low": -5, "high": 5, "seed": None}
    assert "at most 4 guesses" in system_prompt and "<answer>NUMBER</answer>" in system_prompt


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"low": 5, "high": 5}, "low (5) must be below high (5)"),
        ({"max_guesses": 0}, "max_guesses: Input should be greater than or equal to 1"),
        ({"high": "ten"}, "high: Input should be a valid integer"),
        ({"max_guess": 3}, "did you mean 'max_guesses'?"),
    ],
)
def test_bad_configs_are_refused_with_the_reason(config, message):
    with pytest.raises(InvalidConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        {{ cookiecutter.__class }}Env(config)


def test_sample_replies_are_valid_guesses_across_the_range():
    env = {{ cookiecutter.__class }}Env({"low": -5, "high": 5})
    guesses = [parse_guess(reply) for reply in env.sample_replies()]
    assert guesses == sorted(set(guesses)) and guesses[0] == -5 and guesses[-1] == 5
    assert env.max_turns_hint() == env.config.max_guesses
