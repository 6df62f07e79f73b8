"""The agent program docs/agents.md shows works as shown: played through AgentEnv's reset and
step, its tool call is run and its answer scored, and it passes the conformance kit."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from agent_episodes import add_two_and_two

PAGE = (Path(__file__).resolve().parents[1] / "docs" / "agents.md").read_text("utf-8")


def shown_agent() -> Any:
    code = re.search(r"```python\n(.*?)```", PAGE, re.S)
    assert code, "no python block in docs/agents.md"
    namespace: dict[str, Any] = {"__name__": "agents_doc"}
    exec(compile(code.group(1), "agents.md", "exec"), namespace)
    return namespace["MyAgent"]


def test_the_shown_program_runs_its_tool_and_scores_the_answer() -> None:
    observation, _, _, first, last = asyncio.run(add_two_and_two(shown_agent()()))
    assert observation == "What is 2 + 2?"
    assert [result.content for result in first.tool_results] == ["4"]
    assert (last.reward, last.done, last.info) == (1.0, True, {"metrics": {"solved": 1.0}})


def test_the_shown_program_passes_the_conformance_kit() -> None:
    from swift_gym.testing import check_env

    check_env(shown_agent(), configs=[{}], sample_replies=["4"]).raise_for_violations()
