"""Answers that reasoning-gym's scorers would run as Python are refused before they get there;
every stored answer, and every plain answer, still gets the scorer's own score."""

from __future__ import annotations

import pytest

import swift_gym
from swift_gym_reasoning_gym import items
from swift_gym_reasoning_gym.guard import (
    EVALUATES,
    FRACTIONS,
    GUARDED,
    PARSES,
    exponent_refusal,
    expression_refusal,
)

HOSTILE = [
    "__import__('pathlib').Path('{mark}').touch()",
    "x + __import__('pathlib').Path('{mark}').touch()",
    "9**9**9**9",
    "9^9^9^9",
    "(9**9)**(9**9)",
    "((9**99)**99)**99",
    "factorial(10**7)",
    "x**" + "9" * 40,
]


async def answer(task, seed, text):
    env = swift_gym.make({"name": f"reasoning_gym.{task}", "seed": seed})
    await env.reset()
    return await env.step([{"role": "assistant", "content": f"<answer>{text}</answer>"}])


@pytest.mark.parametrize("task", sorted(EVALUATES | PARSES))
async def test_code_and_huge_numbers_never_reach_the_scorer(task, tmp_path):
    mark = tmp_path / "ran"
    for text in HOSTILE:
        _, reward, _, info = await answer(task, 0, text.format(mark=mark))
        assert (reward, info["status"]) == (0.0, "refused"), text
        assert info["note"]
    assert not mark.exists()


@pytest.mark.parametrize("task", sorted(GUARDED))
async def test_stored_answers_pass_the_guard(task):
    env = swift_gym.make({"name": f"reasoning_gym.{task}", "size": 40})
    for seed in range(40):
        _, entry = items.item_for(env.config, seed)[:2]
        from swift_gym_reasoning_gym.guard import refusal

        assert refusal(task, entry["answer"], entry) is None, entry["answer"]


@pytest.mark.parametrize(
    ("task", "text"),
    [
        ("simple_integration", "x**2/2 + 3*x + C"),
        ("intermediate_integration", "2*(2 - 8*x)**(3/2)/3 + C"),
        ("polynomial_multiplication", "-3*x**3 + 2*x - 1"),
        ("countdown", "(3 + 5) * 7 - 2"),
        ("puzzle24", "6 * 4 / (1 + 1 - 1)"),
        ("spiral_matrix", "[1, 2, 3]"),
        ("binary_matrix", "[[0, 1], [1, 0]]"),
        ("string_insertion", "['a', 'b']"),
        ("n_queens", "[['Q', '_'], ['_', 'Q']]"),
    ],
)
async def test_plain_answers_get_the_scorers_own_score(task, text):
    env = swift_gym.make({"name": f"reasoning_gym.{task}", "seed": 1})
    dataset, entry = items.item_for(env.config, 1)[:2]
    _, reward, _, info = await answer(task, 1, text)
    assert info["status"] != "refused"
    assert reward == items.score(task, dataset, text, entry)[0]


def test_the_expression_rules():
    assert expression_refusal("sin(x)**2 + cos(x)**2 - exp(-x/2) + log(x) + sqrt(3)") is None
    assert expression_refusal("x^2 + 1") is None
    assert "name" in expression_refusal("eval(x)")
    assert "character" in expression_refusal("x; y")
    assert "powers of powers" in expression_refusal("2**x**2")
    assert "larger" in expression_refusal("2**100")
    assert expression_refusal("(x + 1)**2 + (x - 1)**2 + (x**2 + 1)**(3/2)") is None
    assert "too deep" in expression_refusal("((x**2 + 1)**2)**2")
    assert "too deep" in expression_refusal(" + ".join(["(9**99)**99"] * 5))
    assert EVALUATES.isdisjoint(PARSES)


@pytest.mark.parametrize(
    "text", ["1e10000000", "1E+0010000000", "3/4e-1_000_000_0", "1e\u0661\u0660\u0660\u0660\u0660"]
)
async def test_coin_flip_refuses_exponents_that_make_huge_powers_of_ten(text):
    # Fraction("1e10000000") computes 10**10000000: 20 s holding the GIL, in the scorer
    _, reward, _, info = await answer("coin_flip", 0, text)
    assert (reward, info["status"]) == (0.0, "refused") and "exponent" in info["note"]


async def test_coin_flip_takes_small_exponents():
    env = swift_gym.make({"name": "reasoning_gym.coin_flip", "seed": 1})
    await env.reset()
    stored = float(env.stored_answer())
    _, reward, _, info = await answer("coin_flip", 1, f"{stored * 10}e-1")
    assert (reward, info["status"]) == (1.0, "correct")
    assert exponent_refusal("0.5e-999") is None and FRACTIONS <= GUARDED
