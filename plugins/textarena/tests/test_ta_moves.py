"""Replies no game can read safely (moves.py) are ordinary invalid moves, over every id: huge
numbers that `int()` refuses, and patterns that make a game's regular expression backtrack
while it holds the GIL. The game never sees them, so the regex cannot freeze the event loop; and
every reply just inside the bounds is answered by the game itself, without an env error."""

from __future__ import annotations

import pytest

import swift_gym
from swift_gym_textarena.ids import ENV_NAMES
from swift_gym_textarena.moves import MAX_BRACKETS, MAX_MOVE_CHARS, problem

BIG = "9" * 8000
LONG = 65536
REFUSED = {
    "a huge number": f"[{BIG}]",
    "a huge second number": f"[1 {BIG}]",
    "a huge first of two": f"[{BIG} 1]",
    "a huge third of three": f"[1 1 {BIG}]",
    "a huge number in a list": f"[1, 2, {BIG}]",
    "a huge number after a letter": f"[h 1 {BIG}]",
    "a huge number in blanks": f"[ {BIG} ]",
    "a huge operand": f"[{BIG} 1 +]",
    "a huge row": f"[{BIG} 1 A]",
    "open brackets": "[" * LONG,
    "open brackets closed at the end": "[" * (LONG - 1) + "]",
    "open brackets with words": "[a " * (LONG // 3),
    "open brackets with blanks": "[\t" * (LONG // 2),
    "blanks after a tower": "[A" + " " * (LONG - 2),
    "blanks after a tower, closed": "[A" + " " * (LONG - 3) + "]",
    "blanks after a comma": "[A," + " " * (LONG - 3),
    "blanks after a peg": "[1" + " " * (LONG - 3) + "x",
    "blanks in a bracket": "[" + " " * (LONG - 1),
    "a long word": "[" + "a" * (LONG - 2) + "]",
    "too many moves": "[1]" * (MAX_BRACKETS + 1),
    "superscript digits": "[\u00b9, \u00b2, \u00b3]",
    "a superscript digit": "[\u00b2]",
}
"""Each breaks one rule of moves.py; before it, each was an env error or froze the loop for
seconds to minutes (65,536 characters is the largest `max_reply_chars`)."""

NEAR = MAX_MOVE_CHARS - 1  # the most characters a move may hold
ANSWERED = {
    "the longest number": "[" + "9" * NEAR + "]",
    "long numbers": "[1 " + "9" * (NEAR - 2) + "]",
    "long first numbers": "[" + "9" * (NEAR - 2) + " 1]",
    "a long third number": "[1 1 " + "9" * (NEAR - 4) + "]",
    "a long number in a list": "[1, 2, " + "9" * (NEAR - 6) + "]",
    "a long number after a letter": "[h 1 " + "9" * (NEAR - 4) + "]",
    "long operands": "[" + "9" * 30 + " " + "9" * 30 + " +]",
    "the most blanks after a tower": ("[A" + " " * (NEAR - 1) + "]") * MAX_BRACKETS,
    "the most blanks after a comma": ("[A," + " " * (NEAR - 2) + "]") * MAX_BRACKETS,
    "the most blanks after a peg": "[1" + " " * (NEAR - 1) + "]" + "x" * 100,
    "the most blank moves": ("[" + " " * NEAR + "]") * MAX_BRACKETS,
    "the most moves on a long line": "[1]" * MAX_BRACKETS + "a" * 60_000,
    "the most moves, far apart": ("[A" + " " * 61 + "]" + "x" * 448) * MAX_BRACKETS,
    "Arabic-Indic digits": "[\u0663] [\u0661 \u0662]",
    "brackets nested": "[[1, 2], [3, 4]]",
}
"""Each within every rule, so the game reads it: each must come back as a move, never an error.
A game that still fails on one (or whose pattern needs more than call_timeout) fails here."""


def say(text):
    return [{"role": "assistant", "content": text}]


def counting_calls(env):
    """Wrap the running game's step: the list of replies it was given."""
    seen = []
    step = env._game.step

    def recorded(action):
        seen.append(action)
        return step(action)

    env._game.step = recorded
    return seen


async def test_a_huge_guess_is_an_invalid_move_not_an_env_error():
    env = swift_gym.make("textarena.GuessTheNumber-v0", seed=0)
    await env.reset()
    observation, reward, done, info = await env.step(say(f"My guess: [{BIG}]"))
    assert (info["status"], reward, done) == ("invalid_action", 0.0, False)
    assert "within 64 characters" in observation
    assert (await env.step(say("[10]")))[3]["status"] in {"ok", "game_over"}  # it goes on


async def test_bandit_never_runs_its_regex_on_open_brackets():
    env = swift_gym.make("textarena.Bandit-v0", seed=0, max_reply_chars=LONG)
    await env.reset()
    seen = counting_calls(env)
    observation, reward, done, info = await env.step(say("[" * LONG))
    assert (info["status"], reward, done) == ("invalid_action", 0.0, False)
    assert seen == [] and f"at most {MAX_BRACKETS} are read" in observation
    await env.step(say("[red]"))
    assert seen == ["[red]"]


@pytest.mark.parametrize("name", ENV_NAMES)
async def test_replies_no_game_can_read_are_invalid_moves_the_game_never_sees(name):
    env = swift_gym.make(name, seed=1, max_reply_chars=LONG)
    await env.reset()
    seen = counting_calls(env)
    for what, reply in REFUSED.items():
        observation, reward, done, info = await env.step(say(reply))
        assert (info["status"], reward, done) == ("invalid_action", 0.0, False), what
        assert info["metrics"]["valid_action"] == 0.0 and len(observation) < 25_000, what
    assert seen == []


@pytest.mark.parametrize("name", ENV_NAMES)
async def test_replies_within_the_bounds_are_moves_the_game_answers(name):
    env = swift_gym.make(name, seed=1, max_reply_chars=LONG, call_timeout=60)
    await env.reset()
    for what, reply in ANSWERED.items():
        assert problem(reply) is None, what
        seen = counting_calls(env)
        _, _, done, info = await env.step(say(reply))  # a game error raises TextArenaGameError
        assert seen == [reply] and info["status"] in {"ok", "invalid_action", "game_over"}, what
        if done:
            await env.reset()


def test_the_rules():
    assert problem("I move the top disk: [A C]. Then [A B], [C B].") is None
    assert problem("[" + "x" * (MAX_MOVE_CHARS - 1) + "]") is None
    assert "within" in problem("[" + "x" * MAX_MOVE_CHARS + "]")
    assert "within" in problem("the interval [0, 1) is half open")
    assert problem("a ] alone, and [1]") is None
    assert f"at most {MAX_BRACKETS}" in problem("[]" * (MAX_BRACKETS + 1))
    assert "'²'" in problem("x² is fine, [x²] is not")


def test_every_game_s_sample_moves_keep_the_rules():
    from swift_gym_textarena import games  # noqa: F401  (fills SAMPLE_MOVES)
    from swift_gym_textarena.env import SAMPLE_MOVES

    assert len(SAMPLE_MOVES) == 21
    assert [move for moves in SAMPLE_MOVES.values() for move in moves if problem(move)] == []
    assert problem("[afternoon Charlie X] and [" + "b" * 20 + "]") is None  # the longest moves
