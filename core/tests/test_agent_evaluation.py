"""`swift_gym.evaluate` playing AgentEnv programs (in-process fakes, registered through a
distribution on sys.path): the policy sees exactly the chat each call of the program sent,
its first call's few-shot chat and its rewritten history included."""

from __future__ import annotations

from typing import Any

import pytest

import swift_gym

PROGRAMS = """
    from swift_gym import AgentEnv, AgentResult

    class FakeFewShot(AgentEnv):
        '''Opens with a few-shot chat, then summarises its history each turn.'''

        async def run(self, client):
            messages = [
                {"role": "system", "content": "Add."},
                {"role": "user", "content": "1+1?"},
                {"role": "assistant", "content": "2"},
                {"role": "user", "content": "2+2?"},
            ]
            first = await client.chat.completions.create(model="m", messages=messages)
            summary = [
                {"role": "system", "content": "Add, part 2."},
                {"role": "user", "content": f"You said {first.choices[0].message.content}. 3+3?"},
            ]
            second = await client.chat.completions.create(model="m", messages=summary)
            answers = [first.choices[0].message.content, second.choices[0].message.content]
            return AgentResult(float(answers == ["4", "6"]), info={"status": "graded"})

        def max_turns_hint(self):
            return 2
"""


@pytest.fixture
def programs(fake_dist: Any, monkeypatch: pytest.MonkeyPatch, clean_plugin_env: None) -> None:
    from swift_gym import registry

    fake_dist("agent-fakes", envs={"few_shot": "agent_fakes:FakeFewShot"},
              modules={"agent_fakes": PROGRAMS})  # fmt: skip
    monkeypatch.setenv("SWIFT_GYM_LOAD_PLUGINS", "agent-fakes")
    monkeypatch.setattr(registry, "_default", registry.Registry())


def test_the_policy_sees_the_programs_first_chat_and_its_rewrite_exactly(programs: None) -> None:
    seen: list[list[dict[str, Any]]] = []

    def policy(messages: list[dict[str, Any]], env: Any) -> str:
        seen.append(messages)
        return "4" if len(seen) == 1 else "6"

    result = swift_gym.evaluate("few_shot", policy, episodes=1)
    (record,) = result.records
    assert record["status"] == "graded" and record["total_reward"] == 1.0
    assert seen[0] == [
        {"role": "system", "content": "Add."},
        {"role": "user", "content": "1+1?"},
        {"role": "assistant", "content": "2"},
        {"role": "user", "content": "2+2?"},
    ]
    assert seen[1] == [
        {"role": "system", "content": "Add, part 2."},
        {"role": "user", "content": "You said 4. 3+3?"},
    ]
    assert record["observation"] == "[user]\n1+1?\n\n[assistant]\n2\n\n[user]\n2+2?"
    assert record["turns"][0]["info"] == {"context_rewritten": True}


def test_an_agent_env_is_listed_without_importing_its_program(programs: None) -> None:
    import sys

    assert [spec.name for spec in swift_gym.list_envs()] == ["few_shot"]
    assert "agent_fakes" not in sys.modules
