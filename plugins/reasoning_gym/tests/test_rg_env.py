"""Episodes: which item a seed plays, the reward, attempts and their feedback, the oracle."""

from __future__ import annotations

import random

import numpy as np
import pytest
from reasoning_gym.dataset import ReseedingDataset
from reasoning_gym.utils import SYSTEM_PROMPTS

import swift_gym
from swift_gym_reasoning_gym import items


def make(task, **config):
    return swift_gym.make({"name": f"reasoning_gym.{task}", **config})


def reply(text):
    return [{"role": "assistant", "content": text}]


async def question(task, **config):
    observation, info, _ = await make(task, **config).reset()
    return observation, info


async def test_episode_seed_n_is_item_n_of_reasoning_gyms_reseeding_stream():
    import reasoning_gym

    stream = ReseedingDataset(reasoning_gym.create_dataset("chain_sum", seed=11, size=4), 4)
    expected = [entry["question"] for _, entry in zip(range(10), stream, strict=False)]
    for seed in range(10):
        observation, info = await question("chain_sum", seed=seed, size=4, dataset_seed=11)
        assert observation == expected[seed]
        assert (info["dataset_seed"], info["index"]) == (11 + seed // 4, seed % 4)


async def test_same_seed_same_question_and_other_seeds_other_questions():
    first = [(await question("basic_arithmetic", seed=s))[0] for s in range(6)]
    again = [(await question("basic_arithmetic", seed=s))[0] for s in range(6)]
    assert first == again and len(set(first)) == 6
    assert (await question("basic_arithmetic", seed=0, dataset_seed=1))[0] != first[0]


async def test_seedless_episodes_draw_an_item_and_say_which():
    env = make("chain_sum", size=50)
    _, info, _ = await env.reset()
    assert 0 <= info["seed"] < 50
    observation, _ = await question("chain_sum", size=50, seed=info["seed"])
    assert observation == env._question()


async def test_the_reward_is_reasoning_gyms_score_of_the_answer():
    env = make("chain_sum", seed=3)
    await env.reset()
    answer = env.stored_answer()
    _, reward, done, info = await env.step(reply(f"thinking... <answer>{answer}</answer>"))
    assert (reward, done, info["status"], info["metrics"]["success"]) == (1.0, True, "correct", 1.0)
    env = make("chain_sum", seed=3)
    await env.reset()
    wrong = str(int(answer) + 1)
    dataset, entry, _, _ = items.item_for(env.config, 3)
    _, reward, done, info = await env.step(reply(f"<answer>{wrong}</answer>"))
    assert reward == dataset.score_answer(wrong, entry) and done and info["status"] == "wrong"
    _, reward, done, info = await env.step(reply(f"<answer>{answer}</answer>"))
    assert (reward, done, info["status"]) == (0.0, True, "episode_over")


async def test_attempts_give_feedback_that_never_shows_the_answer():
    env = make("leg_counting", seed=2, attempts=3)
    await env.reset()
    answer = env.stored_answer()
    rewards = []
    for text in ("no tag here", f"<answer>{int(answer) + 100}</answer>"):
        observation, reward, done, info = await env.step(reply(text))
        rewards.append(reward)
        assert not done and answer not in observation.replace(str(int(answer) + 100), "")
        assert "attempt" in observation
    assert info["attempts_left"] == 1
    observation, reward, done, info = await env.step(reply(f"<answer>{answer}</answer>"))
    assert (rewards, reward, done, info["attempt"]) == ([0.0, 0.0], 1.0, True, 3)


async def test_the_last_attempt_ends_the_episode_with_its_score():
    env = make("leg_counting", seed=2, attempts=2)
    await env.reset()
    _, reward, done, _ = await env.step(reply("<answer>-1</answer>"))
    assert (reward, done) == (0.0, False)
    observation, reward, done, info = await env.step(reply("<answer>-2</answer>"))
    assert done and reward == info["score"] == 0.0 and "No attempts are left" in observation


async def test_a_scorer_that_raises_scores_zero():
    env = make("prime_factorization", seed=0)
    await env.reset()
    _, reward, done, info = await env.step(reply("<answer>xyz</answer>"))
    assert (reward, done, info["score_error"]) == (0.0, True, "ValueError")


async def test_system_prompts_are_reasoning_gyms_or_yours():
    assert (await make("chain_sum", seed=0).reset())[2] == SYSTEM_PROMPTS["default"]
    assert (await make("chain_sum", seed=0, system_prompt_style="direct").reset())[2] == (
        SYSTEM_PROMPTS["direct"]
    )
    assert (await make("chain_sum", seed=0, system_prompt="Be brief.").reset())[2] == "Be brief."


@pytest.mark.parametrize(
    "task", ["boxnet", "graph_color", "propositional_logic", "rubiks_cube", "rush_hour"]
)
async def test_verifier_scored_tasks_store_no_answer_and_have_no_oracle(task):
    env = make(task, seed=0)
    await env.reset()
    assert env.stored_answer() is None
    assert type(env).oracle_reply is swift_gym.Env.oracle_reply  # "oracle: no" everywhere
    with pytest.raises(NotImplementedError):
        env.oracle_reply()
    _, reward, done, _ = await env.step(reply("<answer>nonsense</answer>"))
    assert done and reward < 1.0


@pytest.mark.parametrize(("task", "seed"), [("list_functions", 0), ("pool_matrix", 1)])
async def test_the_global_random_states_are_left_alone(task, seed):
    """list_functions draws from `random` when built; pool_matrix seeds numpy's global RNG."""
    items.clear_cache()
    random.seed(5)
    np.random.seed(5)
    before, numpy_before = random.getstate(), np.random.get_state()[1].copy()
    env = make(task, seed=seed)
    await env.reset()
    await env.step(reply("<answer>1</answer>"))
    assert random.getstate() == before
    assert (np.random.get_state()[1] == numpy_before).all()


async def test_the_caches_are_bounded():
    items.clear_cache()
    for dataset_seed in range(items.MAX_DATASETS + 5):
        await make("chain_sum", seed=0, dataset_seed=dataset_seed).reset()
    assert len(items._datasets) == items.MAX_DATASETS
    for seed in range(20):
        await make("chain_sum", seed=seed).reset()
    assert len(items._items) <= items.MAX_ITEMS


async def test_a_cached_item_is_handed_out_as_a_copy():
    env = make("chain_sum", seed=1)
    await env.reset()
    env._entry["answer"] = "spoiled"
    other = make("chain_sum", seed=1)
    await other.reset()
    assert other.stored_answer() != "spoiled"


def test_the_attempts_are_evals_default_turn_limit():
    def always_wrong(messages, env):
        return "<answer>-1</answer>"

    rows = [{"env_config": {"seed": 2, "attempts": 12}}] * 2
    result = swift_gym.evaluate("reasoning_gym.leg_counting", always_wrong, dataset=rows)
    assert result.cut_off == 0  # not cut at 10: every attempt was played
    assert [record["num_turns"] for record in result.records] == [12, 12]
    assert make("leg_counting", attempts=3).max_turns_hint() == 3
