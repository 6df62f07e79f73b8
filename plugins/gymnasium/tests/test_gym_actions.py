"""Reading replies: any text gives an action of the env or None, at a cost linear in its size."""

from __future__ import annotations

import time

from hypothesis import given
from hypothesis import strategies as st

from swift_gym_gymnasium.actions import ActionReader, answer_format, reply_text

TAXI = ("south", "north", "east", "west", "pickup", "dropoff")


@given(st.text(max_size=300), st.sampled_from(["first_tag", "last_tag", "single_tag"]))
def test_any_text_is_an_action_or_none(text, mode):
    reader = ActionReader(TAXI, mode)
    assert reader.parse(text) in (None, *range(len(TAXI)))
    if reader.parse(text) is None:
        assert isinstance(reader.explain(text), str)


@given(
    st.text(alphabet=st.characters(blacklist_characters="<>"), max_size=100), st.sampled_from(TAXI)
)
def test_a_tag_in_any_prose_is_read(prose, name):
    text = f"{prose}<action> {name.upper()} </action>{prose}"
    assert ActionReader(TAXI, "single_tag").parse(text) == TAXI.index(name)


def test_hostile_replies_cost_linear_time():
    reader = ActionReader(TAXI)
    for text in ["<action>" * 200_000, "<" + " " * 1_000_000, "<action>" + "a" * 1_000_000]:
        started = time.perf_counter()
        assert reader.parse(text) is None
        reader.explain(text)
        assert time.perf_counter() - started < 1.0


def test_reply_shapes():
    assert reply_text([{"role": "assistant", "content": [{"type": "text", "text": "hi"}]}]) == "hi"
    assert reply_text([{"role": "user", "content": "hi"}]) == ""
    assert reply_text([{"role": "assistant", "content": None}]) == ""
    assert reply_text(None) == reply_text([]) == reply_text([7]) == ""
    assert answer_format(("stick", "hit")) == "<action>stick</action> or <action>hit</action>"
