"""code.humaneval keeps the swift-gym contract: the conformance kit, single-turn and with
feedback, with a right answer, wrong ones and the kit's garbage replies."""

from __future__ import annotations

import pytest

from swift_gym.testing import check_env

WRONG = "```python\ndef has_close_elements(numbers, threshold):\n    return None\n```"
BODY_ONLY = "    return True\n"


@pytest.mark.usefixtures("bwrap")
def test_code_humaneval_conforms():
    configs = [
        {"seed": 0},
        {"seed": 38, "feedback": "examples", "max_turns": 2},
        {"task_id": "HumanEval/0", "feedback": "examples"},
    ]
    report = check_env("code.humaneval", configs, sample_replies=[WRONG, BODY_ONLY], max_steps=3)
    assert report.ok, str(report)
    assert report.env == "code.humaneval"
    assert report.steps > report.episodes  # feedback episodes went past their first answer
