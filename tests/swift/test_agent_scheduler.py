"""AgentEnv through ms-swift 4.6's multi-turn loops with the `swift_gym` scheduler.

`ScriptedToolEngine` is an in-process fake of an engine (no model): it replies from a script, with
ms-swift's own tool-call objects, as an engine with `--agent_template` parses them. The agent
programs are real `openai` SDK loops; both of ms-swift's paths (server `run()`, colocate
`run_multi_turn`) are played.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from scripted_tools import ScriptedToolEngine, tool_call
from swift.rollout.gym_env import envs

import swift_gym
from swift_gym import AgentEnv, AgentResult, EnvConfig
from swift_gym import registry as registry_module
from swift_gym.agent.env import running_programs
from swift_gym.ms_swift.factories import EnvFactory
from swift_gym.plugins import load_plugins
from swift_gym.tools import function_tool

ADD = function_tool("add", "Add a number.", {"amount": {"type": "integer"}})
FINALLY: list[str] = []


class LoopConfig(EnvConfig):
    target: int = 3
    summarise: bool = False
    retitle: bool = False
    edit: bool = False
    hang: bool = False
    crash: bool = False


class AddLoop(AgentEnv):
    """Reach `target` with `add`; a plain openai tool loop. With `summarise`, after each tool
    turn it replaces its history by a summary (a new system prompt, one user message)."""

    config_model = LoopConfig

    async def run(self, client: Any) -> AgentResult:
        import asyncio

        total, turns = 0, 0
        system = {"role": "system", "content": "Use add."}
        messages: list[Any] = [system, {"role": "user", "content": f"Reach {self.config.target}."}]
        try:
            while True:
                reply = await client.chat.completions.create(
                    model="policy", messages=messages, tools=[ADD]
                )
                turns += 1
                message = reply.choices[0].message
                if not message.tool_calls:
                    return AgentResult(float(total == self.config.target), {"turns": turns})
                if self.config.hang:
                    await asyncio.Event().wait()
                if self.config.crash:
                    raise RuntimeError("tool server gone")
                messages.append(message)
                for call in message.tool_calls:
                    total += json.loads(call.function.arguments)["amount"]
                    messages.append(
                        {"role": "tool", "tool_call_id": call.id, "content": f"total={total}"}
                    )
                if self.config.retitle:  # a new system prompt, the history kept word for word
                    messages[0] = {"role": "system", "content": f"Use add. Turn {turns + 1}."}
                if self.config.edit:  # the reply shortened: not what the policy wrote
                    messages[-2] = {**messages[-2].model_dump(), "content": "(call)"}
                if self.config.summarise:
                    messages = [
                        {"role": "system", "content": f"Use add. Turn {turns + 1}."},
                        {"role": "user", "content": f"The total is {total}."},
                    ]
        finally:
            FINALLY.append("closed")


class TestPlugin:
    @swift_gym.hookimpl
    def swift_gym_register_envs(self, register: Any) -> None:
        register("tests-agent-loop", AddLoop)


@pytest.fixture(autouse=True)
def agent_env(monkeypatch: pytest.MonkeyPatch):
    loaded = load_plugins()
    loaded.manager.register(TestPlugin(), name="tests-agent-envs")
    monkeypatch.setattr(registry_module, "_default", registry_module.Registry(loaded=loaded))
    monkeypatch.setitem(envs, "tests-agent-loop", EnvFactory("tests-agent-loop"))
    FINALLY.clear()


def add_call(amount: int, call_id: str) -> Any:
    return tool_call("add", {"amount": amount}, call_id)


SCRIPT = [
    ("<tool_call>1</tool_call>", [add_call(1, "c1")]),
    ("<tool_call>2</tool_call>", [add_call(2, "c2")]),
    ("done", []),
]


def play(run_rollout, rows, config: dict[str, Any], script=SCRIPT, max_turns: int = 5):
    from swift.rollout.multi_turn import multi_turns

    engine = ScriptedToolEngine(script)
    scheduler = multi_turns["swift_gym"](
        infer_engine=engine,
        max_turns=max_turns,
        gym_env="tests-agent-loop",
        tokenizer=engine.tokenizer,
    )
    (output,) = run_rollout(
        "swift_gym",
        None,
        rows({"name": "tests-agent-loop", **config}),
        max_turns,
        scheduler=scheduler,
    )
    return output, engine


def test_each_create_is_a_turn_and_the_program_gets_the_policys_calls(run_rollout, rows) -> None:
    output, engine = play(run_rollout, rows, {})
    infos = output.rollout_infos
    assert infos["env_error"] is None
    assert (infos["total_reward"], infos["gym_done"], infos["num_turns"]) == (1.0, True, 3)
    assert infos["env_metrics"] == {"turns": 3}
    first, tools = engine.requests[0]
    assert first == [
        {"role": "system", "content": "Use add."},
        {"role": "user", "content": "Reach 3."},
    ]
    assert tools == [ADD]
    second, _ = engine.requests[1]
    assert second[-1] == {"role": "tool", "tool_call_id": "c1", "name": "add", "content": "total=1"}
    assert infos["tool_calls"][:2] == [
        [{"id": "c1", "name": "add", "arguments": '{"amount": 1}'}],
        [{"id": "c2", "name": "add", "arguments": '{"amount": 2}'}],
    ]
    assert FINALLY == ["closed"] and running_programs() == 0


def test_a_program_that_rewrites_its_history_is_played_exactly(run_rollout, rows) -> None:
    output, engine = play(run_rollout, rows, {"summarise": True})
    assert output.rollout_infos["total_reward"] == 1.0
    second, _ = engine.requests[1]
    assert second == [
        {"role": "system", "content": "Use add. Turn 2."},
        {"role": "user", "content": "The total is 1."},
    ]
    third, _ = engine.requests[2]
    assert third == [
        {"role": "system", "content": "Use add. Turn 3."},
        {"role": "user", "content": "The total is 3."},
    ]
    # what ms-swift trains on: the final chat (the last context and its reply), and the
    # reply's own sampled ids are the last completion
    assert [m["role"] for m in output.messages] == ["system", "user", "assistant"]
    assert output.messages[1]["content"] == "The total is 3."
    assert output.response_token_ids[-1] == [ord(c) for c in "done"]


def test_an_episode_cut_off_by_max_turns_leaves_no_program_running(run_rollout, rows) -> None:
    output, _ = play(run_rollout, rows, {"target": 99}, script=SCRIPT[:1], max_turns=2)
    infos = output.rollout_infos
    assert infos["gym_done"] is False and infos["num_turns"] == 2
    assert FINALLY == ["closed"] and running_programs() == 0


def test_a_hanging_program_is_ended_by_the_step_timeout(
    run_rollout, rows, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SWIFT_GYM_STEP_TIMEOUT", "0.5")
    output, _ = play(run_rollout, rows, {"hang": True})
    error = output.rollout_infos["env_error"]
    assert error == "step failed: TimeoutError: timed out after 0.5s"
    assert output.rollout_infos["total_reward"] == 0.0
    assert FINALLY == ["closed"] and running_programs() == 0


def test_replies_kept_word_for_word_in_a_rewritten_chat_keep_their_sampled_ids(
    run_rollout, rows, caplog: pytest.LogCaptureFixture
) -> None:
    output, engine = play(run_rollout, rows, {"retitle": True})
    assert output.rollout_infos["total_reward"] == 1.0
    third, _ = engine.requests[2]
    assert third[0] == {"role": "system", "content": "Use add. Turn 3."}
    replies = [m["content"] for m in third if m["role"] == "assistant"]
    assert replies == [[ord(c) for c in text] for text, _ in SCRIPT[:2]]  # ids, not text
    assert [m["role"] for m in third] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
    ]
    assert "not the policy's latest replies" not in caplog.text


def test_an_edited_reply_in_a_rewritten_chat_is_shown_as_written_and_warned(
    run_rollout, rows, caplog: pytest.LogCaptureFixture
) -> None:
    output, engine = play(run_rollout, rows, {"edit": True})
    assert output.rollout_infos["total_reward"] == 1.0
    second, _ = engine.requests[1]
    assert second[2]["role"] == "assistant" and second[2]["content"] == "(call)"
    assert "not the policy's latest replies in order" in caplog.text


def test_a_program_that_raises_ends_only_its_episode(run_rollout, rows) -> None:
    output, _ = play(run_rollout, rows, {"crash": True})
    infos = output.rollout_infos
    assert infos["env_error"] == (
        "step failed: AgentProgramError: the agent program raised RuntimeError: tool server gone"
    )
    assert (infos["total_reward"], infos["num_turns"]) == (0.0, 1)
    assert FINALLY == ["closed"] and running_programs() == 0
