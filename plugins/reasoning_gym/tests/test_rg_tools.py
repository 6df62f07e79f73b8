"""`tools: ["python"]`: the config, the episode's rules, the sandbox's lifetime and limits, the
oracle through the tool on every task that stores an answer, and the conformance kit."""

from __future__ import annotations

import json

import pytest

import swift_gym
from swift_gym import InvalidConfigError, StepResult
from swift_gym.sandbox import SandboxLimits, operator_limits
from swift_gym.sandbox.process import live
from swift_gym.testing import check_env
from swift_gym_reasoning_gym.ids import TASKS, VERIFIER_SCORED

NAME = "reasoning_gym.basic_arithmetic"
TOOLS = {"tools": ["python"]}
EXACT = [task for task in TASKS if task not in VERIFIER_SCORED]
COMPOSITE = {"datasets": [{"name": "chain_sum", "weight": 1.0, "config": {}}]}


def call(code: str, call_id: str = "c1") -> dict:
    return {"id": call_id, "type": "function",
            "function": {"name": "python", "arguments": json.dumps({"code": code})}}  # fmt: skip


def calling(*codes: str) -> dict:
    calls = [call(code, f"c{index}") for index, code in enumerate(codes)]
    return {"role": "assistant", "content": "", "tool_calls": calls}


def text(reply: str) -> dict:
    return {"role": "assistant", "content": reply}


async def started(seed: int = 3, **config):
    env = swift_gym.make({"name": NAME, "seed": seed, **TOOLS, **config})
    observation, _info, system = await env.reset()
    return env, [{"role": "system", "content": system}, {"role": "user", "content": observation}]


async def play(env, messages, reply) -> StepResult:
    messages.append(reply)
    result = await env.step(messages)
    assert isinstance(result, StepResult)
    for answer in result.tool_results:
        messages.append({"role": "tool", "tool_call_id": answer.tool_call_id,
                         "content": answer.content})  # fmt: skip
    return result


# --- the config ----------------------------------------------------------------------------


def test_tools_default_to_none_and_a_text_episode_is_unchanged():
    env = swift_gym.make({"name": NAME, "seed": 3})
    assert env.config.tools == [] and env.tools() == [] and env.python is None
    assert "python tool" not in env.system_prompt and env.max_turns_hint() == 1


async def test_a_text_episode_steps_with_the_four_tuple_and_no_tool_keys():
    env = swift_gym.make({"name": NAME, "seed": 3})
    await env.reset()
    result = await env.step([text(env.oracle_reply())])
    assert isinstance(result, tuple) and result[1:3] == (1.0, True)
    assert "tool_calls" not in result[3] and "tool_calls" not in result[3]["metrics"]


@pytest.mark.parametrize(
    ("tools", "said"),
    [
        (["pyton"], "unknown tool 'pyton'; did you mean 'python'? (the tools reasoning-gym envs "
                    "offer: python)"),
        (["answer"], "unknown tool 'answer' (the tools reasoning-gym envs offer: python)"),
        ("python", "Input should be a valid list"),
        (["python", "python"], "each tool may be listed once"),
    ],
)  # fmt: skip
def test_unknown_tools_are_refused_with_a_clear_error(tools, said):
    with pytest.raises(InvalidConfigError) as caught:
        swift_gym.make({"name": NAME, "tools": tools})
    assert "tools" in str(caught.value) and said in str(caught.value)


@pytest.mark.parametrize("calls", [0, 33, "4", 2.5])
def test_max_tool_calls_is_bounded(calls):
    with pytest.raises(InvalidConfigError, match="max_tool_calls"):
        swift_gym.make({"name": NAME, **TOOLS, "max_tool_calls": calls})


@pytest.mark.parametrize(
    "field",
    ["limits", "sandbox", "sandbox_limits", "wall_seconds", "memory_bytes", "backend",
     "output_bytes", "max_processes"],
)  # fmt: skip
def test_a_row_cannot_set_any_sandbox_limit(field):
    with pytest.raises(InvalidConfigError, match=f"{field}: unknown"):
        swift_gym.make({"name": NAME, **TOOLS, field: 3600})


def test_the_limits_are_the_operators_whatever_the_row_says(monkeypatch):
    monkeypatch.delenv("SWIFT_GYM_SANDBOX_LIMITS", raising=False)
    loose = {"attempts": 20, "max_tool_calls": 32, "size": 100_000, "system_prompt": "x" * 100}
    env = swift_gym.make({"name": NAME, **TOOLS, **loose})
    assert env.python.tool.limits == SandboxLimits()
    tight = {"wall_seconds": 1.5, "memory_bytes": 128 * 1024 * 1024, "output_bytes": 2048}
    monkeypatch.setenv("SWIFT_GYM_SANDBOX_LIMITS", json.dumps(tight))
    env = swift_gym.make({"name": NAME, **TOOLS, **loose})
    assert env.python.tool.limits == SandboxLimits(**tight) == operator_limits()


def test_a_broken_operator_setting_names_the_variable(monkeypatch):
    monkeypatch.setenv("SWIFT_GYM_SANDBOX_LIMITS", '{"wall_seconds": -1}')
    with pytest.raises(ValueError, match="SWIFT_GYM_SANDBOX_LIMITS must be a JSON object"):
        swift_gym.make({"name": NAME, **TOOLS})


async def test_the_operators_wall_limit_holds_against_a_row_that_asks_for_more(bwrap, monkeypatch):
    monkeypatch.setenv("SWIFT_GYM_SANDBOX_LIMITS", '{"wall_seconds": 1}')
    env, messages = await started(max_tool_calls=32, attempts=20)
    result = await play(env, messages, calling("import time; time.sleep(30)"))
    (answer,) = result.tool_results
    assert "wall time limit of 1 s" in answer.content
    await env.close()
    assert live() == []


# --- the episode ----------------------------------------------------------------------------


async def test_the_episode_offers_python_and_says_how_to_answer():
    env, _messages = await started(max_tool_calls=2)
    (tool,) = env.tools()
    assert tool["function"]["name"] == "python"
    assert env.system_prompt.endswith(
        "You may call the python tool to run Python code (at most 2 calls in this episode); it "
        "shows what the code printed. When you are done, reply without a tool call, with your "
        "final answer in <answer></answer> tags."
    )
    assert env.max_turns_hint() == 1 + 2
    custom = swift_gym.make({"name": NAME, **TOOLS, "system_prompt": "Mine."})
    assert custom.system_prompt == "Mine."


async def test_calls_run_in_one_session_then_a_reply_without_calls_is_the_answer(bwrap):
    env, messages = await started(seed=3)  # ( 56 + -33 ) - 84 = -61
    first = await play(env, messages, calling("x = (56 + -33) - 84", "print(x)"))
    assert [r.content for r in first.tool_results] == ["(no output)", "stdout:\n-61"]
    assert (first.reward, first.done, first.info["status"]) == (0.0, False, "tool_call")
    assert first.info["tool_calls"] == 2 and first.info["tool_calls_left"] == 2
    assert first.info["attempt"] == 0 and first.info["metrics"]["answered"] == 0.0
    second = await play(env, messages, calling("import os; os.getpid()"))
    assert second.tool_results[0].content == "value: 1"  # PID 1 of the sandbox's own namespace
    assert len(live()) == 1
    final = await play(env, messages, text("<answer>-61</answer>"))
    assert (final.reward, final.done, final.info["status"]) == (1.0, True, "correct")
    assert final.tool_results == () and final.info["step"] == 3
    assert final.info["metrics"]["tool_calls"] == 3.0
    await env.close()
    assert live() == []


async def test_past_the_budget_a_calling_reply_is_scored_as_the_answer(bwrap):
    env, messages = await started(max_tool_calls=1)
    first = await play(env, messages, calling("print(1)", "print(2)"))
    assert first.tool_results[0].content == "stdout:\n1"
    assert first.tool_results[1].is_error and "no python calls are left" in (
        first.tool_results[1].content
    )
    assert not first.done and first.info["tool_calls_left"] == 0
    last = await play(env, messages, calling("print(3)"))
    (refused,) = last.tool_results
    assert refused.is_error and "This reply was taken as your answer." in refused.content
    assert (last.done, last.reward, last.info["status"]) == (True, 0.0, "no_answer")
    over = await play(env, messages, calling("print(4)"))
    assert over.done and over.tool_results[0].is_error and over.info["status"] == "episode_over"
    await env.close()


async def test_a_refused_call_counts_and_starts_no_sandbox():
    env, messages = await started(max_tool_calls=2)
    bad = {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "x", "type": "function", "function": {"name": "answer", "arguments": "{}"}}
        ],
    }
    result = await play(env, messages, bad)
    assert result.tool_results[0].is_error and "unknown tool 'answer'" in (
        result.tool_results[0].content
    )
    assert result.info["tool_calls_left"] == 1 and live() == []
    await env.close()


async def test_a_cut_off_episode_leaves_no_sandbox_and_reset_starts_a_fresh_session(bwrap):
    env, messages = await started()
    await play(env, messages, calling("kept = 42; kept"))
    assert len(live()) == 1
    await env.reset()  # the same instance, a new episode: the old session ended
    assert live() == []
    result = await play(env, messages[:2], calling("kept"))
    assert "NameError" in result.tool_results[0].content
    await env.close()  # cut off in mid-episode, as a scheduler closes it at max_turns
    assert live() == [] and not env.done
    await env.close()


# --- the oracle -----------------------------------------------------------------------------


@pytest.mark.parametrize("task", EXACT)
async def test_the_oracle_answers_what_the_sandbox_printed_on_every_task(bwrap, task):
    config = {"datasets": COMPOSITE["datasets"]} if task == "composite" else {}
    env = swift_gym.make({"name": f"reasoning_gym.{task}", "seed": 1, **TOOLS, **config})
    observation, _, _system = await env.reset()
    messages = [{"role": "user", "content": observation}]
    first = await play(env, messages, env.oracle_reply())
    (printed,) = first.tool_results
    stored = env.stored_answer()
    assert printed.content.startswith("stdout:\n") and env.python.printed == stored
    reply = env.oracle_reply()
    assert reply == f"<answer>{stored}</answer>"
    last = await play(env, messages, text(reply))
    assert (last.reward, last.done, last.info["status"]) == (1.0, True, "correct")
    await env.close()
    assert live() == []


# --- the conformance kit --------------------------------------------------------------------

SAMPLES = ["<answer>0</answer>", "The answer: <answer> 12 </answer>", calling("print(6 * 7)")]


@pytest.mark.parametrize("task", ["basic_arithmetic", "chain_sum", "sudoku", "rush_hour"])
def test_the_tool_mode_conforms(bwrap, task):
    configs = [{"seed": 0, **TOOLS}, {"seed": 7, "attempts": 2, "max_tool_calls": 1, **TOOLS}]
    report = check_env(f"reasoning_gym.{task}", configs, sample_replies=SAMPLES, max_steps=8)
    assert report.ok, str(report)
    assert live() == []
