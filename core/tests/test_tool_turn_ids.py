"""Unit tests of `swift_gym.ms_swift.tool_turn_ids` with in-process fake templates (named so);
`tests/swift/test_tool_turn_encoding.py` checks the same against ms-swift's real templates."""

from __future__ import annotations

from swift_gym.ms_swift.tool_turn_ids import overlap, response_ids, trimmed_turn

END, NEWLINE, START = 2, 10, 1


def test_overlap_is_the_longest_tail_the_following_ids_open_with() -> None:
    assert overlap([7, END], [END, NEWLINE, START]) == 1
    assert overlap([7, END, NEWLINE], [END, NEWLINE, START]) == 2
    assert overlap([7, 8], [END, NEWLINE]) == 0
    assert overlap([7, END], []) == 0


def test_overlap_never_takes_the_whole_reply() -> None:
    assert overlap([END], [END, NEWLINE]) == 0
    assert overlap([END, END], [END, END]) == 1


def test_trimmed_turn_cuts_ids_mask_and_logprobs_together() -> None:
    out = trimmed_turn([7, END], [1, 1], [-0.1, -0.2], [END, NEWLINE])
    assert out == {
        "response_token_ids": [7],
        "response_loss_mask": [1],
        "rollout_logprobs": [-0.1],
    }


def test_trimmed_turn_keeps_a_masked_prefix_and_counts_logprobs_per_trained_id() -> None:
    # a response prefix the template injected (mask 0) has no logprob of its own
    out = trimmed_turn([5, 7, END], [0, 1, 1], [-0.1, -0.2], [END])
    assert out == {
        "response_token_ids": [5, 7],
        "response_loss_mask": [0, 1],
        "rollout_logprobs": [-0.1],
    }


def test_trimmed_turn_leaves_logprobs_that_do_not_line_up_out() -> None:
    out = trimmed_turn([7, END], [1, 1], [-0.1], [END])
    assert out == {"response_token_ids": [7], "response_loss_mask": [1]}


def test_trimmed_turn_is_none_without_an_overlap_or_over_an_untrained_id() -> None:
    assert trimmed_turn([7, 8], [1, 1], [], [END]) is None
    assert trimmed_turn([7, END], [1, 0], [], [END]) is None


class FakeAgentTemplate:
    """In-process fake: a tool response opened by the end token, as hermes opens it."""

    def _format_tool_responses(self, reply, tool_messages):
        return reply, ["<end>\n", "<start>user\n", [99], "more"]


class FakeTemplate:
    """In-process fake of ms-swift's template: its agent template and `_tokenize`."""

    agent_template = FakeAgentTemplate()

    def _tokenize(self, text: str) -> list[int]:
        table = {"<end>": END, "\n": NEWLINE, "<start>": START, "user": 20}
        out, rest = [], text
        while rest:
            key = next(k for k in table if rest.startswith(k))
            out.append(table[key])
            rest = rest[len(key) :]
        return out


def test_response_ids_are_the_tool_responses_opening_text_up_to_its_first_ids() -> None:
    ids = response_ids(FakeTemplate(), "call", [{"role": "tool", "content": "x"}])
    assert ids == [END, NEWLINE, START, 20, NEWLINE]


def test_response_ids_are_empty_when_the_template_cannot_say() -> None:
    class Broken(FakeTemplate):
        class agent_template:
            @staticmethod
            def _format_tool_responses(reply, tool_messages):
                raise ValueError("another shape")

    assert response_ids(Broken(), "call", []) == []
    assert response_ids(object(), "call", []) == []
