"""The three scorers that reward non-answers (holes.py), through the env: a non-answer earns
nothing (a prefix, its share), the stored answer still earns 1.0, other answers keep the
scorer's own score, and info says what reasoning-gym gave and why it was lowered."""

from __future__ import annotations

import swift_gym
from swift_gym_reasoning_gym import items


async def play(task, seed, text, **config):
    env = swift_gym.make({"name": f"reasoning_gym.{task}", "seed": seed, **config})
    await env.reset()
    stored = env.stored_answer()
    _, reward, _, info = await env.step(
        [{"role": "assistant", "content": f"<answer>{text}</answer>"}]
    )
    return stored, reward, info


async def test_game_of_life_halting_pays_only_the_stored_answer():
    for seed in range(6):
        stored, reward, _ = await play("game_of_life_halting", seed, "x")
        assert stored in ("True", "False")
        for right in (stored, stored.lower(), f" {stored.upper()} "):
            assert (await play("game_of_life_halting", seed, right))[1] == 1.0
        wrong = "False" if stored == "True" else "True"
        for text in (wrong, "nan", "None", "yes", "0"):
            _, reward, info = await play("game_of_life_halting", seed, text)
            assert (reward, info["status"], info["scorer_score"]) == (0.0, "wrong", 1.0), text
            assert "any non-empty answer" in info["score_corrected"]


async def test_complex_arithmetic_pays_nothing_for_nan():
    for seed in range(4):
        for text in ("nan", "NaN", "-nan", "nan+nanj", "3+nanj", "(nan)"):
            _, reward, info = await play("complex_arithmetic", seed, text)
            assert (reward, info["scorer_score"]) == (0.0, 1.0), (seed, text)
        stored, reward, info = await play("complex_arithmetic", seed, "x")
        assert (await play("complex_arithmetic", seed, stored))[1] == 1.0
        env = swift_gym.make({"name": "reasoning_gym.complex_arithmetic", "seed": seed})
        dataset, entry = items.item_for(env.config, seed)[:2]
        real, imag = entry["metadata"]["result"]
        near = f"{real + 0.5}{imag:+}i"  # a near number keeps its partial credit
        _, reward, info = await play("complex_arithmetic", seed, near)
        expected = items.score("complex_arithmetic", dataset, near, entry)[0]
        assert 0.0 < reward == expected < 1.0 and "score_corrected" not in info


async def test_coin_flip_pays_a_prefix_as_a_share_of_the_longer_number():
    stored, reward, info = await play("coin_flip", 1, "0")
    assert stored == "0.3125"
    assert info["scorer_score"] == 1.0 and reward == 1 / 6  # "0" of "0.3125"
    assert "prefix" in info["score_corrected"]
    assert (await play("coin_flip", 1, "0.3"))[1] == 3 / 6
    assert (await play("coin_flip", 1, "0.31251"))[1] == 1.0  # within coin_flip's tolerance
    assert (await play("coin_flip", 1, "5/16"))[1] == 1.0
    _, reward, info = await play("coin_flip", 1, "0.3135")  # its own credit: 4 of 6 digits
    assert reward == 4 / 6 and "score_corrected" not in info


async def test_composite_items_are_corrected_by_their_own_task():
    datasets = [{"name": "game_of_life_halting", "weight": 1.0, "config": {}}]
    _, reward, info = await play("composite", 0, "nan", datasets=datasets)
    assert (reward, info["scorer_score"]) == (0.0, 1.0)
