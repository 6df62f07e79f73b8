"""Tool-calling envs through ms-swift 4.6's own schedulers (server and colocate paths).

`ScriptedToolEngine` (an in-process fake of vLLM, like conftest's ScriptedEngine) answers each
turn with a reply whose `message.tool_calls` holds ms-swift's own `ChatCompletionMessageToolCall`s,
as an engine with an `--agent_template` parses them. `CounterEnv`, a small test tool env, is reached
through swift-gym's registry and the factory it puts in ms-swift's `envs`, as a user's env is.
The template checks encode the scheduler's messages with ms-swift's real templates.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import jsonl_records
import pytest
from scripted_tools import CharTokenizer, ScriptedToolEngine, tool_call
from swift.infer_engine.protocol import ChatCompletionMessageToolCall
from swift.rollout.gym_env import envs

import swift_gym
from swift_gym import registry as registry_module
from swift_gym.errors import SchedulerError
from swift_gym.ms_swift.factories import EnvFactory
from swift_gym.plugins import load_plugins

ENV_NAME = "tests-counter"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add a number to the counter.",
            "parameters": {
                "type": "object",
                "properties": {"amount": {"type": "integer"}},
                "required": ["amount"],
                "additionalProperties": False,
            },
        },
    }
]


class CounterEnv(swift_gym.Env):
    """Reach 3 by calling `add`. Each step answers every call; text replies are invalid."""

    async def reset(self, request=None):
        self.total = 0
        self.seen: list[Any] = []
        return "Reach 3.", {"start": 0}, "Call add."

    def tools(self):
        return TOOLS

    async def step(self, messages):
        self.seen.append(messages[-1])
        results = []
        for call in swift_gym.tool_calls(messages):
            checked = swift_gym.ToolSet(TOOLS).check(call)
            if isinstance(checked, swift_gym.ToolResult):
                results.append(checked)
                continue
            self.total += checked["amount"]
            results.append(swift_gym.ToolResult.for_call(call, f"total={self.total}"))
        done = self.total >= 3
        observation = "" if results else "Call the add tool."
        return swift_gym.StepResult(observation, float(done), done, {"total": self.total}, results)


class TextEnv(swift_gym.Env):
    """A text env: one step, reward 1."""

    async def reset(self, request=None):
        return "Say hi.", {}, ""

    async def step(self, messages):
        return "bye", 1.0, True, {"reply": swift_gym.reply_text(messages)}


class TestPlugin:
    @swift_gym.hookimpl
    def swift_gym_register_envs(self, register: Any) -> None:
        register(ENV_NAME, CounterEnv)
        register("tests-text", TextEnv)


@pytest.fixture(autouse=True)
def counter_env(monkeypatch: pytest.MonkeyPatch):
    """The test envs in swift-gym's registry, and its factories in ms-swift's `envs`."""
    loaded = load_plugins()
    loaded.manager.register(TestPlugin(), name="tests-tool-envs")
    monkeypatch.setattr(registry_module, "_default", registry_module.Registry(loaded=loaded))
    monkeypatch.setitem(envs, ENV_NAME, EnvFactory(ENV_NAME))
    monkeypatch.setitem(envs, "tests-text", EnvFactory("tests-text"))


def add_call(amount: Any, call_id: str) -> Any:
    """A parsed call of `add`; a str `amount` is the arguments' text as written (garbage)."""
    return tool_call("add", amount if isinstance(amount, str) else {"amount": amount}, call_id)


SCRIPT = [
    ('<tool_call>{"name": "add", "arguments": {"amount": 1}}</tool_call>', [add_call(1, "c1")]),
    ("thinking", []),
    ("two calls", [add_call("{bad", "c2"), add_call(2, "c3")]),
]


def make(scheduler_name: str, script, max_turns: int = 5):
    from swift.rollout.multi_turn import multi_turns

    engine = ScriptedToolEngine(script)
    scheduler = multi_turns[scheduler_name](
        infer_engine=engine, max_turns=max_turns, gym_env=ENV_NAME, tokenizer=engine.tokenizer
    )
    return scheduler, engine


def episode(run_rollout, rows, script=SCRIPT, max_turns: int = 5):
    scheduler, engine = make("swift_gym", script, max_turns)
    (output,) = run_rollout(
        "swift_gym", None, rows({"name": ENV_NAME}), max_turns, scheduler=scheduler
    )
    return output, engine


def test_the_env_gets_the_calls_and_the_model_gets_tool_messages(run_rollout, rows) -> None:
    output, engine = episode(run_rollout, rows)
    infos = output.rollout_infos
    assert infos["env_error"] is None
    assert infos["total_reward"] == 1.0 and infos["gym_done"] is True and infos["num_turns"] == 3
    # every request offered the env's tools, so the --agent_template renders them
    assert [tools for _, tools in engine.requests] == [TOOLS] * 3
    # the second request: the reply, then its result as a tool message, tied to the call
    second, _ = engine.requests[1]
    assert second[-1] == {"role": "tool", "tool_call_id": "c1", "name": "add", "content": "total=1"}
    assert second[-2]["role"] == "assistant" and "tool_calls" not in second[-2]
    # a reply without calls: the env's text comes back as a user message, as for a text env
    third, _ = engine.requests[2]
    assert third[-1] == {"role": "user", "content": "Call the add tool."}
    assert infos["tool_calls"] == [
        [{"id": "c1", "name": "add", "arguments": '{"amount": 1}'}],
        [],
        [
            {"id": "c2", "name": "add", "arguments": "{bad"},
            {"id": "c3", "name": "add", "arguments": '{"amount": 2}'},
        ],
    ]
    assert [[r["content"] for r in turn] for turn in infos["tool_results"]] == [
        ["total=1"],
        [],
        [infos["tool_results"][2][0]["content"], "total=3"],
    ]
    assert infos["tool_results"][2][0]["content"].startswith("Error: the arguments of 'add'")
    assert infos["tools"] == TOOLS


def test_step_reads_the_calls_on_the_reply_in_openai_shape(
    run_rollout, rows, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []
    original = CounterEnv.step

    async def spy(self, messages):
        seen.append(messages[-1])
        return await original(self, messages)

    monkeypatch.setattr(CounterEnv, "step", spy)
    episode(run_rollout, rows, [*SCRIPT[:1], SCRIPT[2]])
    assert seen[0] == {
        "role": "assistant",
        "content": SCRIPT[0][0],
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "add", "arguments": '{"amount": 1}'},
            }
        ],
    }


def test_an_env_that_changes_its_messages_leaves_the_rollouts_alone(
    run_rollout, rows, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`step` gets its own copy of the chat (nested content and calls included): what it does
    to it never reaches the messages ms-swift trains on."""
    original = CounterEnv.step

    async def vandal(self, messages):
        result = await original(self, messages)
        for message in messages:
            message["content"] = "VANDAL"
            for call in message.get("tool_calls") or []:
                call["function"]["name"] = "VANDAL"
        messages[0].clear()
        messages.append({"role": "user", "content": "VANDAL"})
        return result

    monkeypatch.setattr(CounterEnv, "step", vandal)
    output, engine = episode(run_rollout, rows, [SCRIPT[0], SCRIPT[2]])
    assert "VANDAL" not in json.dumps([m for m, _ in engine.requests] + [output.messages])
    assert output.rollout_infos["total_reward"] == 1.0


def test_results_and_text_together_make_one_tool_turn(
    run_rollout, rows, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ms-swift's templates cannot render a user turn right after tool messages."""

    async def step(self, messages):
        (call,) = swift_gym.tool_calls(messages)
        return swift_gym.StepResult(
            "The lake shimmers.", 0.0, False, {}, [swift_gym.ToolResult.for_call(call, "ok")]
        )

    monkeypatch.setattr(CounterEnv, "step", step)
    _, engine = episode(run_rollout, rows, [SCRIPT[0]], max_turns=2)
    messages, _ = engine.requests[1]
    assert messages[-1] == {
        "role": "tool",
        "tool_call_id": "c1",
        "name": "add",
        "content": "ok\n\nThe lake shimmers.",
    }


def test_a_step_that_leaves_a_call_unanswered_ends_the_episode(
    run_rollout, rows, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def step(self, messages):
        return "no results", 0.0, False, {}

    monkeypatch.setattr(CounterEnv, "step", step)
    output, _ = episode(run_rollout, rows, [SCRIPT[0]])
    error = output.rollout_infos["env_error"]
    assert error.startswith("step failed: InvalidStepError: step() gave no result for call 'c1'")
    assert output.rollout_infos["total_reward"] == 0.0


def test_the_trajectory_file_keeps_tools_calls_and_results(
    run_rollout, rows, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SWIFT_GYM_TRAJECTORIES", str(tmp_path))
    episode(run_rollout, rows)
    (file,) = tmp_path.glob("*.jsonl")
    (record,) = jsonl_records.records(file)
    assert record["tools"] == TOOLS and record["success"] is True
    turns = record["turns"]
    assert turns[0]["tool_calls"] == [{"id": "c1", "name": "add", "arguments": '{"amount": 1}'}]
    assert turns[0]["tool_results"] == [{"tool_call_id": "c1", "name": "add", "content": "total=1"}]
    assert turns[0]["reply"] == SCRIPT[0][0]
    assert turns[1]["tool_calls"] == [] and turns[1]["tool_results"] == []
    assert turns[1]["observation"] == "Call the add tool."


def test_a_text_env_record_and_infos_have_no_tool_keys(
    run_rollout, rows, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SWIFT_GYM_TRAJECTORIES", str(tmp_path))
    scheduler, engine = make("swift_gym", [("hi", [add_call(1, "c1")])])
    (output,) = run_rollout("swift_gym", None, rows({"name": "tests-text"}), 3, scheduler=scheduler)
    assert output.rollout_infos["total_reward"] == 1.0
    assert not {"tools", "tool_calls", "tool_results"} & set(output.rollout_infos)
    assert engine.requests[0][1] is None  # no tools offered
    (file,) = tmp_path.glob("*.jsonl")
    record = json.loads(file.read_text())
    assert "tools" not in record
    assert not {"tool_calls", "tool_results"} & set(record["turns"][0])


def test_a_tool_env_under_gym_scheduler_fails_naming_swift_gym(run_rollout, rows) -> None:
    scheduler, _ = make("gym_scheduler", SCRIPT)
    with pytest.raises(SchedulerError, match="--multi_turn_scheduler swift_gym") as caught:
        run_rollout("gym_scheduler", None, rows({"name": ENV_NAME}), 3, scheduler=scheduler)
    assert f"env {ENV_NAME!r} offers tools" in str(caught.value)


def test_a_text_env_under_gym_scheduler_plays_as_before(run_rollout, rows) -> None:
    scheduler, _ = make("gym_scheduler", [("hi", [])])
    (output,) = run_rollout(
        "gym_scheduler", None, rows({"name": "tests-text"}), 3, scheduler=scheduler
    )
    assert output.rollout_infos == {
        "total_reward": 1.0,
        "step_rewards": [1.0],
        "gym_done": True,
        "num_turns": 1,
    }


def test_the_guard_leaves_a_text_env_after_its_first_step() -> None:
    env = envs["tests-text"]({})
    asyncio.run(env.reset())
    assert "step" in vars(env)
    asyncio.run(env.step([{"role": "assistant", "content": "hi"}]))
    assert "step" not in vars(env)
    assert type(env) is TextEnv


@pytest.fixture(scope="module")
def processor(tmp_path_factory: pytest.TempPathFactory):
    from swift.model import get_processor
    from tiny_model import build_tiny_model

    model = build_tiny_model(tmp_path_factory.mktemp("tiny-model"))
    return get_processor(str(model), model_type="qwen2", download_model=False)


HERMES_CALL = '<tool_call>\n{"name": "add", "arguments": {"amount": 1}}\n</tool_call>'


@pytest.mark.parametrize("agent_template", ["hermes", "llama3", "qwen3_coder", "glm4", "mistral"])
@pytest.mark.parametrize("history", ["text", "token_ids"])
def test_tool_results_render_as_tool_responses_with_no_loss(
    processor, agent_template: str, history: str, rows, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scheduler's messages, encoded by ms-swift's real template in train mode (as the
    trainer encodes a rollout): tool responses in the prompt text, none of their tokens
    labelled; the replies (the calls) labelled. `token_ids`: the replies as the token ids the
    trainer puts in their place (`replace_assistant_response_with_ids`)."""
    from swift.template import get_template

    result = "total=1 (RESULT-MARK)"

    async def step(self, messages):
        calls = swift_gym.tool_calls(messages)
        results = [swift_gym.ToolResult.for_call(call, result) for call in calls]
        return swift_gym.StepResult("", 0.0, False, {}, results)

    script = [(HERMES_CALL, [add_call(1, "c1")]), ("<tool_call>done</tool_call>", [])]
    monkeypatch.setattr(CounterEnv, "step", step)
    scheduler, _ = make("swift_gym", script, max_turns=2)
    (output,) = run_server_mode_plain(scheduler, rows({"name": ENV_NAME}))
    tokenizer = CharTokenizer()
    messages = [dict(message) for message in output.messages]
    for message in messages:  # earlier replies come back as the stand-in engine's token ids
        if message["role"] == "assistant" and isinstance(message["content"], list):
            message["content"] = tokenizer.decode(message["content"])
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert messages[3]["content"] == result
    if history == "token_ids":
        for message in messages:
            if message["role"] == "assistant":
                message["content"] = processor.encode(message["content"], add_special_tokens=False)
    template = get_template(processor, template_type="qwen2_5", agent_template=agent_template)
    template.set_mode("train")
    encoded = template.encode({"messages": messages, "tools": TOOLS})
    ids, labels = encoded["input_ids"], encoded["labels"]
    text = processor.decode(ids)
    learned = processor.decode([i for i, label in zip(ids, labels, strict=True) if label != -100])
    assert text.count("RESULT-MARK") == 1  # rendered once, in the prompt
    assert "RESULT-MARK" not in learned
    assert HERMES_CALL in learned and "<tool_call>done</tool_call>" in learned
    assert "Add a number to the counter." in text.split(HERMES_CALL)[0]  # tools, in the prompt
    if agent_template == "hermes":
        assert f"<tool_response>\n{result}\n</tool_response>" in text


def run_server_mode_plain(scheduler, requests):
    from swift.infer_engine.protocol import RequestConfig

    config = RequestConfig(max_tokens=32, return_details=True)

    async def run_all():
        return await asyncio.gather(*(scheduler.run(request, config) for request in requests))

    return asyncio.run(run_all())


def test_rows_without_the_envs_tools_get_one_warning(
    run_rollout, rows, caplog: pytest.LogCaptureFixture
) -> None:
    """ms-swift trains on (and in colocate mode starts from) the prompt of the row's `tools`."""
    scheduler, _ = make("swift_gym", [SCRIPT[0]], max_turns=1)
    requests = rows({"name": ENV_NAME}, {"name": ENV_NAME})
    with caplog.at_level("WARNING", logger="swift_gym"):
        run_rollout("swift_gym", None, requests, 1, scheduler=scheduler)
    warnings = [r.getMessage() for r in caplog.records if "dataset rows do not" in r.getMessage()]
    assert len(warnings) == 1 and "tests-counter" in warnings[0]
    caplog.clear()
    scheduler, _ = make("swift_gym", [SCRIPT[0]], max_turns=1)
    requests = rows({"name": ENV_NAME})
    requests[0].tools = TOOLS
    with caplog.at_level("WARNING", logger="swift_gym"):
        run_rollout("swift_gym", None, requests, 1, scheduler=scheduler)
    assert not [r for r in caplog.records if "dataset rows do not" in r.getMessage()]


def test_calls_parsed_by_ms_swifts_hermes_template_reach_the_env(run_rollout, rows) -> None:
    """The stand-in engine parses its text as ms-swift's `InferEngine._get_toolcall` does, with
    the real hermes agent template: ids ms-swift makes up, arguments re-encoded by `Function`."""
    from swift.agent_template import agent_template_map

    hermes = agent_template_map["hermes"]()
    text = '<tool_call>\n{"name": "add", "arguments": {"amount": 3}}\n</tool_call>'
    calls = [ChatCompletionMessageToolCall(function=f) for f in hermes.get_toolcall(text)]
    scheduler, _ = make("swift_gym", [(text, calls)])
    (output,) = run_rollout("swift_gym", None, rows({"name": ENV_NAME}), 3, scheduler=scheduler)
    infos = output.rollout_infos
    assert infos["total_reward"] == 1.0 and infos["num_turns"] == 1
    ((call,),) = infos["tool_calls"]
    assert call["name"] == "add" and json.loads(call["arguments"]) == {"amount": 3}
    assert infos["tool_results"] == [
        [{"tool_call_id": call["id"], "name": "add", "content": "total=3"}]
    ]
