"""Every registered task keeps the swift-gym contract: the conformance kit, two configs each
(one episode seed per config, to keep the 106 tasks within a minute or two)."""

from __future__ import annotations

import pytest

from swift_gym.testing import check_env
from swift_gym_reasoning_gym.ids import ENV_NAMES

SAMPLES = ["<answer>0</answer>", "<answer>yes</answer>", "The answer: <answer> 12 </answer>"]
COMPOSITE = {"datasets": [{"name": "chain_sum", "weight": 1.0, "config": {}}]}


def configs(name):
    extra = COMPOSITE if name == "reasoning_gym.composite" else {}
    return [{"seed": 0, **extra}, {"seed": 7, "attempts": 2, "size": 5, **extra}]


@pytest.mark.parametrize("name", ENV_NAMES)
def test_every_task_conforms(name):
    report = check_env(name, configs(name), sample_replies=SAMPLES, copies=2, max_steps=4)
    assert report.ok, str(report)
    assert report.env == name


def test_a_seedless_config_conforms_too():
    report = check_env("reasoning_gym.chain_sum", [{}], sample_replies=SAMPLES, seeds=(0, 1))
    assert report.ok, str(report)
