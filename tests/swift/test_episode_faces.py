"""One scripted episode through every face that plays envs: the same chat, rewards and records.

The faces: ms-swift's `swift_gym` scheduler by its server path and its colocate path (driven by
ms-swift's own multi-turn loop, on an in-process fake engine), `evaluate`'s episode runner,
`swift-gym play`'s loop (fed lines as if piped) and `serve`'s sessions (in process, frame by
frame). Each plays the same replies to three envs: a text env, a tool env whose step answers
calls with results and text (so the chat's layout is under test: the text joins the last tool
message), and an agent program that rewrites its chat after each tool turn. Each env keeps the
chat its step receives: the chat the model saw, plus its reply.

Then what an env returns that breaks a rule (done=1, info=None, a NaN reward, a missing tool
result) gets the same verdict, in the same words, from the scheduler, eval, serve, play and the
conformance kit.
"""

from __future__ import annotations

import asyncio
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import jsonl_records
import pytest
from scripted_tools import ScriptedToolEngine, tool_call
from swift.infer_engine.protocol import RolloutInferRequest
from swift.rollout.gym_env import envs

import swift_gym
from swift_gym import AgentEnv, AgentResult
from swift_gym.cli import play as play_command
from swift_gym.evaluation.episodes import EpisodeSpec, run_episode
from swift_gym.evaluation.policies import CallablePolicy
from swift_gym.ms_swift.trajectory_log import VARIABLE
from swift_gym.serving.sessions import Session, SessionTable
from swift_gym.testing.episodes import Episode as KitEpisode
from swift_gym.testing.episodes import Recorder
from swift_gym.testing.replies import RepeatedReply
from swift_gym.tools import function_tool

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "note",
            "description": "Write a note.",
            "parameters": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
                "additionalProperties": False,
            },
        },
    }
]
SEEN: list[list[dict[str, Any]]] = []
"""The chat each step of the last episode received, per face (cleared by `play_face`)."""


class NotesEnv(swift_gym.Env):
    """Two notes end the episode: each call is answered, with text beside the results."""

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        self.notes: list[str] = []
        return "Write two notes.", {"notes": 0}, "Use the note tool."

    def tools(self) -> list[dict[str, Any]]:
        return TOOLS

    async def step(self, messages: list[dict[str, Any]]) -> Any:
        SEEN.append(json.loads(json.dumps(messages)))
        results = []
        for call in swift_gym.tool_calls(messages):
            text = json.loads(call.arguments)["text"]
            self.notes.append(text)
            results.append(swift_gym.ToolResult.for_call(call, f"noted {text}"))
        done = len(self.notes) >= 2
        text = "Call the note tool." if not results else f"{2 - len(self.notes)} to go"
        info = {"notes": len(self.notes), "status": "written" if done else "writing"}
        return swift_gym.StepResult(text, 0.5 * len(results), done, info, results)


class NotesLoop(AgentEnv):
    """An agent program (a plain openai tool loop) that adds until the model stops calling;
    after each tool turn it replaces its history with a summary, so every face plays a chat the
    env rewrote."""

    async def run(self, client: Any) -> AgentResult:
        total = 0
        messages: list[Any] = [
            {"role": "system", "content": "Use add."},
            {"role": "user", "content": "Reach 3."},
        ]
        while True:
            reply = await client.chat.completions.create(
                model="policy", messages=messages, tools=[ADD]
            )
            message = reply.choices[0].message
            if not message.tool_calls:
                return AgentResult(float(total == 3), {"total": total})
            for call in message.tool_calls:
                total += json.loads(call.function.arguments)["amount"]
            messages = [
                {"role": "system", "content": "Use add."},
                {"role": "user", "content": f"The total is {total}. Reach 3."},
            ]

    async def step(self, messages: list[dict[str, Any]]) -> Any:
        SEEN.append(json.loads(json.dumps(messages)))
        return await super().step(messages)


ADD = function_tool("add", "Add a number.", {"amount": {"type": "integer"}})


class CountdownEnv(swift_gym.Env):
    """A text env: three replies, whatever they say, reward 1 at the end."""

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        self.left = 3
        return "Say three things.", {}, "Count down."

    async def step(self, messages: list[dict[str, Any]]) -> Any:
        SEEN.append(json.loads(json.dumps(messages)))
        self.left -= 1
        done = self.left == 0
        info = {"action": swift_gym.reply_text(messages), "status": "counted" if done else "go"}
        return f"{self.left} left", float(done), done, info


@dataclass(frozen=True)
class Case:
    """An env, and the replies every face plays: (text, [(call id, arguments)]) per turn."""

    name: str
    env: type[swift_gym.Env]
    tool: str
    script: list[tuple[str, list[tuple[str, dict[str, Any]]]]]
    rewards: list[float]
    tools: list[Any] | None


CASES = {
    "text env": Case(
        "countdown",
        CountdownEnv,
        "",
        [("three", []), ("two", []), ("one", [])],
        [0.0, 0.0, 1.0],
        None,
    ),
    "tool env": Case(
        "notes",
        NotesEnv,
        "note",
        [
            ("let me think", []),
            ("", [("call_1", {"text": "a"})]),  # `play` sends a call with no text: so do we
            ("", [("call_2", {"text": "b"})]),
        ],
        [0.0, 0.5, 0.5],
        TOOLS,
    ),
    "agent program": Case(
        "notes-loop",
        NotesLoop,
        "add",
        [
            ("", [("call_1", {"amount": 1})]),
            ("", [("call_2", {"amount": 2})]),
            ("done", []),
        ],
        [0.0, 0.0, 1.0],
        None,
    ),
}


def reply_message(case: Case, turn: int) -> dict[str, Any]:
    text, calls = case.script[turn]
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": case.tool, "arguments": json.dumps(arguments)},
            }
            for call_id, arguments in calls
        ]
    return message


def engine_script(case: Case) -> list[tuple[str, list[Any]]]:
    return [
        (text, [tool_call(case.tool, arguments, call_id) for call_id, arguments in calls])
        for text, calls in case.script
    ]


@pytest.fixture(autouse=True)
def faces_envs(monkeypatch: pytest.MonkeyPatch) -> None:
    for case in CASES.values():  # as an --external_plugins file would
        monkeypatch.setitem(envs, case.name, case.env)


def scheduler_face(
    case: Case, run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, Any]:
    from swift.rollout.multi_turn import multi_turns

    monkeypatch.setenv(VARIABLE, str(tmp_path))
    engine = ScriptedToolEngine(engine_script(case))
    scheduler = multi_turns["swift_gym"](
        infer_engine=engine, max_turns=5, gym_env=case.name, tokenizer=engine.tokenizer
    )
    request = RolloutInferRequest(
        messages=[{"role": "user", "content": "?"}],
        uuid="faces-0",
        data_dict={"env_config": {"name": case.name}},
        tools=case.tools,
    )
    (output,) = run("swift_gym", None, [request], 5, scheduler=scheduler)
    (path,) = [p for p in tmp_path.iterdir() if p.suffix == ".jsonl"]
    (record,) = jsonl_records.records(path)
    return {"rewards": output.rollout_infos["step_rewards"], "record": record}


def eval_face(case: Case) -> dict[str, Any]:
    turn = iter(range(len(case.script)))
    policy = CallablePolicy(lambda messages, env: reply_message(case, next(turn)), name="script")
    spec = EpisodeSpec(0, case.name, {})
    record = asyncio.run(run_episode(spec, policy, 5, Registry(case.env)))
    return {"rewards": [t["reward"] for t in record["turns"]], "record": record}


def play_face(case: Case, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    lines = []
    for text, calls in case.script:
        if calls:  # play numbers its calls call_1, call_2, ... as the script does
            (_, arguments), *_ = calls
            lines.append(f"/call {case.tool} {json.dumps(arguments)}")
        else:
            lines.append(text)
    monkeypatch.setattr(play_command, "read_replies", lambda: iter(lines))
    session = play_command.Session()
    loop = asyncio.new_event_loop()
    try:
        play_command._play(case.env({}), loop, 5, session)
    finally:
        loop.close()
    return {"total": session.total, "status": session.status, "turns": session.turns}


def serve_face(case: Case) -> dict[str, Any]:
    class Catalogue:
        registry = Registry(case.env)

        def env_config(self, data: Any) -> tuple[str, dict[str, Any], None]:
            return case.name, {}, None

        def requested_env(self, data: Any) -> str:
            return case.name

    async def play() -> dict[str, Any]:
        session = Session(Catalogue(), SessionTable(1), step_timeout=10)  # type: ignore[arg-type]
        await session.handle("reset", {})
        rewards, frames = [], []
        for turn in range(len(case.script)):
            message = reply_message(case, turn)
            action: dict[str, Any] = {"message": message["content"]}
            if "tool_calls" in message:
                action["tool_calls"] = message["tool_calls"]
            frame = json.loads(await session.handle("step", action))["data"]
            session.answered()
            frames.append(frame)
            rewards.append(frame["reward"])
        await session.close()
        return {"rewards": rewards, "frames": frames}

    return asyncio.run(play())


@pytest.mark.parametrize("which", sorted(CASES))
def test_one_script_gives_the_same_chat_rewards_and_records_on_every_face(
    which: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_rollout: Any
) -> None:
    """`run_rollout`: the scheduler's server path, or its colocate path."""
    case = CASES[which]
    chats: dict[str, list[list[dict[str, Any]]]] = {}
    faces: dict[str, dict[str, Any]] = {}
    SEEN.clear()
    faces["training"] = scheduler_face(case, run_rollout, tmp_path, monkeypatch)
    chats["training"] = list(SEEN)
    for name, face in (("eval", eval_face), ("serve", serve_face)):
        SEEN.clear()
        faces[name] = face(case)
        chats[name] = list(SEEN)
    SEEN.clear()
    faces["play"] = play_face(case, monkeypatch)
    chats["play"] = list(SEEN)

    expected = chats["eval"]
    assert len(expected) == len(case.script)
    for name, chat in chats.items():
        assert chat == expected, name
    for name in ("training", "eval", "serve"):
        assert faces[name]["rewards"] == case.rewards, name
    assert [frame["done"] for frame in faces["serve"]["frames"]] == [False, False, True]
    eval_record = faces["eval"]["record"]
    assert eval_record["success"] is True
    status = eval_record["status"]
    assert faces["play"] == {"total": sum(case.rewards), "status": status, "turns": 3}
    record = faces["training"]["record"]
    assert (record["status"], record["success"]) == (status, True)
    assert record["turns"] == eval_record["turns"]
    assert record.get("tools") == eval_record.get("tools")


def test_a_tool_steps_text_joins_its_last_tool_message() -> None:
    """The layout ms-swift's templates force (no user turn after tool messages); the test above
    shows every face lays out the same chat."""
    SEEN.clear()
    eval_face(CASES["tool env"])
    chat = SEEN[2]  # the third step's chat: after the first call's answer
    assert chat[3] == {"role": "user", "content": "Call the note tool."}  # a text step
    assert chat[-2] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "name": "note",
        "content": "noted a\n\n1 to go",
    }


def test_an_agent_programs_rewritten_chat_is_the_chat_played() -> None:
    SEEN.clear()
    eval_face(CASES["agent program"])
    assert SEEN[1][:2] == [
        {"role": "system", "content": "Use add."},
        {"role": "user", "content": "The total is 1. Reach 3."},
    ]


class Registry:
    """Stands in for the registry (an in-process fake): every name is `cls`."""

    def __init__(self, cls: type[swift_gym.Env]):
        self.cls = cls

    def get_env_class(self, name: str) -> type[swift_gym.Env]:
        return self.cls


class RuleBreaker(swift_gym.Env):
    """A text env whose first step returns `RESULT` (set per case)."""

    RESULT: ClassVar[Any] = None

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        return "go", {}, ""

    async def step(self, messages: list[dict[str, Any]]) -> Any:
        return type(self).RESULT


class ToolRuleBreaker(NotesEnv):
    """A tool env that answers no call."""

    async def step(self, messages: list[dict[str, Any]]) -> Any:
        return swift_gym.StepResult("nothing", 0.0, False, {}, [])


BROKEN = {
    "done_1": (RuleBreaker, ("obs", 1.0, 1, {}), "step()'s done must be a bool, got 1"),
    "info_none": (RuleBreaker, ("obs", 1.0, True, None), "step()'s info must be a dict, got None"),
    "reward_nan": (RuleBreaker, ("obs", math.nan, True, {}), "step()'s reward must be finite"),
    "no_result": (ToolRuleBreaker, None, "step() gave no result for call 'call_1'"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_step_gets_the_same_verdict_and_words_on_every_face(
    case: str, monkeypatch: pytest.MonkeyPatch, run_rollout: Any, capsys: Any
) -> None:
    env_class, result, words = BROKEN[case]
    monkeypatch.setattr(RuleBreaker, "RESULT", result)
    monkeypatch.setitem(envs, "breaker", env_class)
    call = reply_message(CASES["tool env"], 1)  # a call of note, id call_1

    from swift.rollout.multi_turn import multi_turns

    engine = ScriptedToolEngine(engine_script(CASES["tool env"])[1:])
    scheduler = multi_turns["swift_gym"](
        infer_engine=engine, max_turns=3, gym_env="breaker", tokenizer=engine.tokenizer
    )
    request = RolloutInferRequest(
        messages=[{"role": "user", "content": "?"}],
        uuid="breaker-0",
        data_dict={"env_config": {"name": "breaker"}},
        tools=TOOLS if env_class is ToolRuleBreaker else None,
    )
    (output,) = run_rollout("swift_gym", None, [request], 3, scheduler=scheduler)
    training = output.rollout_infos["env_error"]

    policy = CallablePolicy(lambda messages, env: call, name="script")
    record = asyncio.run(run_episode(EpisodeSpec(0, "breaker", {}), policy, 3, Registry(env_class)))

    class Catalogue:
        registry = Registry(env_class)

        def env_config(self, data: Any) -> tuple[str, dict[str, Any], None]:
            return "breaker", {}, None

        def requested_env(self, data: Any) -> str:
            return "breaker"

    async def serve() -> str:
        session = Session(Catalogue(), SessionTable(1), step_timeout=10)  # type: ignore[arg-type]
        await session.handle("reset", {})
        action = {"message": "", "tool_calls": call["tool_calls"]}
        try:
            await session.handle("step", action)
        except Exception as error:  # the protocol error the client gets as a frame
            return str(error)
        finally:
            await session.close()
        return ""

    served = asyncio.run(serve())

    line = "/call note " + call["tool_calls"][0]["function"]["arguments"]
    monkeypatch.setattr(play_command, "read_replies", lambda: iter([line]))
    loop = asyncio.new_event_loop()
    capsys.readouterr()
    try:
        play_command._play(env_class({}), loop, 3, play_command.Session())
    except play_command._Stop:  # the env failed: play says why and ends with its summary
        pass
    finally:
        loop.close()
    played = capsys.readouterr().out

    problems: list[str] = []

    async def kit() -> None:
        recorder = Recorder(lambda check, message, step, reply: problems.append(message), 10.0)
        episode = KitEpisode(env_class({}), RepeatedReply(call), call_timeout=10, recorder=recorder)
        await episode.start()
        await episode.advance(3)

    asyncio.run(kit())

    assert training is not None and words in training
    assert record["status"] == "error" and words in record["error"]
    assert words in served
    assert f"error: the env failed: InvalidStepError: {words}" in played
    assert any(words in problem for problem in problems), problems
