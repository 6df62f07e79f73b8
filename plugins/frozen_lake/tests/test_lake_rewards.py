"""frozen_lake_format: the share of assistant turns with exactly one valid action tag."""

from __future__ import annotations

import swift_gym_frozen_lake
from swift_gym.rewards import collect_rewards
from swift_gym_frozen_lake.rewards import format_reward


def conversation(*replies: object) -> list[dict[str, object]]:
    messages: list[dict[str, object]] = [{"role": "system", "content": "rules"}]
    for reply in replies:
        messages += [{"role": "user", "content": "map"}, {"role": "assistant", "content": reply}]
    return messages


def test_scores_each_assistant_turn_of_each_row() -> None:
    rows = [
        conversation("<action>up</action>", "<ACTION> left </action>"),
        conversation("<action>up</action>", "go up", "<action>up</action><action>down</action>"),
        conversation(None, [{"type": "text", "text": "<action>right</action>"}]),
        [{"role": "user", "content": "no reply yet"}],
    ]
    scores = format_reward(["", "", "", ""], messages=rows)
    assert scores == [1.0, 1 / 3, 0.5, 0.0]


def test_turns_ms_swift_keeps_as_token_ids_are_judged_by_their_step_or_left_out() -> None:
    """In a multi-turn rollout ms-swift hands every assistant turn but the last over as token
    ids; scored as invalid, three good turns would earn 1/3 (a reward for short episodes)."""
    ids = [27, 1311, 29, 454]
    row = conversation(ids, {"token_ids": ids}, "<action>up</action>")
    steps = [{"status": "ok"}, {"status": "invalid_action"}, {"status": "goal"}]
    scores = format_reward(
        ["", "", ""],
        messages=[row, row, conversation(ids, ids, "no tag")],
        rollout_infos=[{"step_infos": steps}, None, {"step_infos": steps[:1]}],
    )
    assert scores == [2 / 3, 1.0, 0.5]  # by the steps; left out; one step known, then the text


def test_without_messages_only_the_completion_is_scored() -> None:
    assert format_reward(["<action>down</action>", "<action>jump</action>"]) == [1.0, 0.0]


def test_registered_by_the_package_plugin() -> None:
    rewards = collect_rewards()
    assert rewards["frozen_lake_format"] == "swift_gym_frozen_lake.rewards:format_reward"
    assert swift_gym_frozen_lake.format_reward is format_reward
