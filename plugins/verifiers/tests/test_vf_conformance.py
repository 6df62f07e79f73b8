"""The example environments keep the swift-gym env contract (the conformance kit).

The calculator is checked with one config: each of its episodes starts the task's MCP server
(a Python process importing verifiers: 5 to 10 s on 2 shared cores), so its kit run skips the
episode-heavy `garbage`, `determinism` and `isolation` (about 40 episodes, 3 minutes here);
the two tool-less examples run them all. `tool_calls` runs: the bad calls reach verifiers' MCP
tool server or the harness, whose answers `AgentEnv` marks as errors for the calls its offered
tools refuse.
"""

from __future__ import annotations

import json

import pytest

from swift_gym.testing import check_env

CALL = {
    "role": "assistant",
    "content": "",
    "tool_calls": [
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "calc_add", "arguments": json.dumps({"a": 1, "b": 2})},
        }
    ],
}
SAMPLES = {
    "verifiers.sg_reverse": ["cba", "olleh", ""],
    "verifiers.sg_guess": ["4", "1", "eight"],
    "verifiers.sg_calculator": [CALL, "<answer>5</answer>"],
}


TOOLS = "verifiers.sg_calculator"


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_conformance(name: str) -> None:
    configs = [{}] if name == TOOLS else [{}, {"index": 1}]
    skip = ("garbage", "determinism", "isolation") if name == TOOLS else ()
    report = check_env(
        name,
        configs,
        sample_replies=SAMPLES[name],
        seeds=(0,),
        max_steps=4,
        call_timeout=60,
        skip=skip,
    )
    assert report.ok, str(report)
