"""Property-based tests: the action parser, every config field and `step` on arbitrary input.

A rollout hands the env whatever the model wrote and a dataset row holds whatever its author
typed, so these check the contract over generated inputs rather than chosen ones: the parser
never raises and only ever answers one of ACTIONS (or None), a config either validates or raises
the one documented `InvalidConfigError`, valid configs survive a round trip, and `step` never
raises. Example tables live in test_lake_actions.py, test_lake_config.py and test_lake_env.py.
"""

from __future__ import annotations

import asyncio
import copy
import json
import math
import re

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from swift_gym import InvalidConfigError, printable, validate_config
from swift_gym_frozen_lake import ACTIONS, FrozenLakeConfig, FrozenLakeEnv, generate_random_map
from swift_gym_frozen_lake.actions import PARSING_MODES, explain_invalid, parse_action, reply_text
from swift_gym_frozen_lake.config import TEXT_STYLES
from swift_gym_frozen_lake.rewards import format_reward

FIELDS = sorted(FrozenLakeConfig.model_fields)
TAG_MODES = ("first_tag", "last_tag", "single_tag")
SETTINGS = settings(max_examples=200, deadline=None)
ENV_SETTINGS = settings(max_examples=60, deadline=None)

# --- strategies -------------------------------------------------------------------------------

LOOKALIKES = ["\u0131", "\u0130", "\u017f", "\u212a", "\u00e9", "\u0301", "\u4e2d", "\U0001f600"]
"""Characters that Unicode case-insensitive matching equates with ASCII letters (dotless i,
dotted I, long s, Kelvin sign), and other non-ASCII that sits next to words."""

FRAGMENTS = [
    *ACTIONS,
    *(action.upper() for action in ACTIONS),
    "Right",
    "dOwN",
    "r\u0131ght",
    "R\u0130GHT",
    "set up",
    "upward",
    "action",
    "<action>",
    "</action>",
    "< Action >",
    "</ action >",
    "<",
    ">",
    "/",
    " ",
    "\n",
    "\t",
    "\u00a0",
    "_",
    "0",
    *LOOKALIKES,
]

MB = 1024 * 1024
HUGE_TEXTS = {
    "filler then tag": "x" * MB + "<action>left</action>",
    "open brackets": "<" * MB,
    "open tags": "<action>" * (MB // 8),
    "direction words": "right " * (MB // 6),
    "wide characters": "\u4e2d" * MB,
}
huge_texts = st.sampled_from(sorted(HUGE_TEXTS)).map(HUGE_TEXTS.__getitem__)
"""Megabyte replies, drawn by name: built once, and never printed in a strategy's repr."""

texts = st.one_of(
    st.text(),
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=30).map("".join),
    huge_texts,
)
"""Arbitrary text, biased towards the tags, direction words and Unicode lookalikes that matter."""

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),  # NaN and the infinities included
    texts,
)
json_like = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.tuples(children, children),
        st.dictionaries(st.text(max_size=8), children, max_size=4),
    ),
    max_leaves=12,
)
"""Any JSON-like value (tuples too: Python callers pass them), nested lists and dicts included."""

content_parts = st.lists(
    st.one_of(
        texts,
        st.fixed_dictionaries(
            {},
            optional={
                "type": st.sampled_from(["text", "image_url"]) | json_like,
                "text": texts | json_like,
            },
        ),
        json_like,
    ),
    max_size=5,
)
chat_messages = st.fixed_dictionaries(
    {},
    optional={
        "role": st.sampled_from(["assistant", "user", "system", "tool"]) | json_like,
        "content": st.one_of(texts, content_parts, json_like),
    },
)
message_lists = st.one_of(
    st.lists(st.one_of(chat_messages, json_like), max_size=4),
    st.lists(chat_messages, max_size=4).map(tuple),
    json_like,
)
"""What `step` may be handed: chat histories of every shape, and things that are not one."""


def case_variants(word: str) -> st.SearchStrategy[str]:
    return st.lists(st.booleans(), min_size=len(word), max_size=len(word)).map(
        lambda upper: "".join(c.upper() if u else c for c, u in zip(word, upper, strict=True))
    )


spaces = st.text(alphabet=st.sampled_from(" \t\n\r\x0b\x0c\u00a0\u2003\u3000"), max_size=8)
"""Whitespace that both the tag pattern (`\\s`) and `str.strip` accept."""


@st.composite
def valid_tags(draw: st.DrawFn) -> tuple[str, str]:
    """One well-formed `<action>...</action>` tag, with any casing and spacing, and its action."""
    action = draw(st.sampled_from(ACTIONS))
    word = draw(case_variants("action"))
    end_word = draw(case_variants("action"))
    tag = (
        f"<{draw(spaces)}{word}{draw(spaces)}>"
        f"{draw(spaces)}{draw(case_variants(action))}{draw(spaces)}"
        f"<{draw(spaces)}/{draw(spaces)}{end_word}{draw(spaces)}>"
    )
    return tag, action


@st.composite
def upstream_tags(draw: st.DrawFn) -> tuple[str, str]:
    """A tag as the ms-swift example reads one: `<action>`, spaces, a direction, `</action>`."""
    action = draw(st.sampled_from(ACTIONS))
    tag = (
        f"<{draw(case_variants('action'))}>{draw(spaces)}{draw(case_variants(action))}"
        f"{draw(spaces)}</{draw(case_variants('action'))}>"
    )
    return tag, action


no_brackets = st.text(alphabet=st.characters(exclude_characters="<>"), max_size=60) | st.lists(
    st.sampled_from([f for f in FRAGMENTS if "<" not in f and ">" not in f]), max_size=12
).map(" ".join)
"""Filler that can be no part of a tag: every tag starts with '<' and ends with '>'."""


# --- the action parser ------------------------------------------------------------------------


def last_direction_word(text: str) -> str | None:
    """Oracle of the upstream fallback: the last whole word that is an ASCII direction."""
    words = [word.lower() for word in re.findall(r"\w+", text) if word.isascii()]
    found = [word for word in words if word in ACTIONS]
    return found[-1] if found else None


@SETTINGS
@given(text=texts, mode=st.sampled_from(PARSING_MODES))
@example(text="r\u0131ght", mode="upstream")  # dotless i: matched 'right' case-insensitively
@example(text="go R\u0130GHT", mode="upstream")
def test_parse_action_never_raises_and_answers_an_action_or_none(text, mode):
    action = parse_action(text, mode)
    assert action is None or action in ACTIONS
    if action is None:
        reason = explain_invalid(text, mode)
        assert reason and reason.isascii()


@SETTINGS
@given(value=json_like.filter(lambda value: not isinstance(value, str)), mode=st.text(max_size=12))
def test_anything_that_is_not_a_string_is_no_action(value, mode):
    for each in (*PARSING_MODES, mode):
        assert parse_action(value, each) is None


@SETTINGS
@given(text=texts, mode=st.text(max_size=12).filter(lambda mode: mode not in PARSING_MODES))
def test_an_unknown_mode_is_no_action(text, mode):
    assert parse_action(text, mode) is None


@SETTINGS
@given(tag=valid_tags(), before=no_brackets, after=no_brackets)
def test_exactly_one_valid_tag_parses_to_its_action_in_every_tag_mode(tag, before, after):
    text, action = tag
    for mode in TAG_MODES:
        assert parse_action(before + text + after, mode) == action, mode


@SETTINGS
@given(tag=upstream_tags(), before=no_brackets, after=no_brackets, extra=valid_tags())
def test_upstream_reads_the_first_tag_in_its_form_whatever_follows(tag, before, after, extra):
    text, action = tag
    for mode in (*TAG_MODES, "upstream"):  # exact also wants nothing around the tag
        assert parse_action(before + text + after, mode) == action, mode
    assert parse_action(before + text + after + extra[0], "upstream") == action


@SETTINGS
@given(
    action=st.sampled_from(ACTIONS),
    inside=st.sampled_from(["move ", "'", '"', "go ", "**"]),
    before=no_brackets,
    after=no_brackets,
)
def test_upstream_a_tag_holding_more_than_a_direction_is_no_tag(action, inside, before, after):
    text = f"{before}<action>{inside}{action}{inside[::-1]}</action>{after}"
    assert parse_action(text, "upstream") == last_direction_word(text)


@SETTINGS
@given(text=no_brackets)
def test_without_tags_only_upstream_reads_the_last_direction_word(text):
    for mode in TAG_MODES:
        assert parse_action(text, mode) is None
    assert parse_action(text, "upstream") == last_direction_word(text)


@SETTINGS
@given(text=texts, before=no_brackets, after=no_brackets)
def test_text_around_the_tags_never_changes_a_tag_mode(text, before, after):
    for mode in TAG_MODES:
        assert parse_action(before + text + after, mode) == parse_action(text, mode), mode


@SETTINGS
@given(text=texts)
def test_the_modes_agree_where_their_rules_overlap(text):
    modes = ("first_tag", "last_tag", "single_tag", "exact", "upstream")
    first, last, single, exact, upstream = (parse_action(text, mode) for mode in modes)
    if single is not None:  # the one tag is also the first and the last
        assert first == last == single
    if exact is not None:  # a reply that is one tag has one tag
        assert single == exact
    if upstream is None:  # no direction anywhere: no tag holds one either
        assert first is last is single is exact is None


@SETTINGS
@given(
    tag=valid_tags(),
    space=st.lists(st.sampled_from([" ", "\n", "\t", "\u00a0", "\u3000"]), max_size=4).map("".join),
    extra=no_brackets.filter(lambda text: text.strip() != ""),
)
def test_exact_mode_reads_one_tag_alone_and_refuses_anything_around_it(tag, space, extra):
    text, action = tag
    assert parse_action(space + text + space, "exact") == action
    assert parse_action(extra + text, "exact") is None
    assert parse_action(text + extra, "exact") is None
    assert "besides one <action> tag" in explain_invalid(text + extra, "exact")


# --- reply extraction -------------------------------------------------------------------------


@SETTINGS
@given(messages=message_lists)
def test_reply_text_never_raises_and_always_gives_a_string(messages):
    before = copy.deepcopy(messages)
    text = reply_text(messages)
    assert isinstance(text, str)
    assert repr(messages) == repr(before)  # not mutated (repr: a NaN is not == itself)
    for mode in PARSING_MODES:
        assert parse_action(text, mode) in (None, *ACTIONS)


@SETTINGS
@given(
    history=st.lists(chat_messages, max_size=3),
    content=texts,
    role=st.sampled_from([None, "assistant"]),
)
def test_the_last_assistant_string_content_is_the_reply(history, content, role):
    last = {"content": content} if role is None else {"role": role, "content": content}
    assert reply_text([*history, last]) == content
    assert reply_text((*history, last)) == content


@SETTINGS
@given(history=st.lists(chat_messages, max_size=3), content=texts, role=json_like)
def test_a_last_message_from_anyone_else_is_no_reply(history, content, role):
    assume(role != "assistant")
    assert reply_text([*history, {"role": role, "content": content}]) == ""


@SETTINGS
@given(parts=st.lists(texts, max_size=5))
def test_string_content_parts_are_joined_by_newlines(parts):
    assert reply_text([{"role": "assistant", "content": parts}]) == "\n".join(parts)


@SETTINGS
@given(text=texts)
def test_a_bare_string_is_its_own_reply(text):
    assert reply_text(text) == text
    assert reply_text(["earlier", text]) == text


@SETTINGS
@given(
    rows=st.lists(st.tuples(st.one_of(texts, json_like), message_lists), max_size=4),
    with_messages=st.booleans(),
)
def test_the_format_reward_scores_any_rows_between_0_and_1(rows, with_messages):
    """`frozen_lake_format` parses every assistant turn ms-swift hands it, whatever it holds."""
    completions = [completion for completion, _ in rows]
    kwargs = {"messages": [messages for _, messages in rows]} if with_messages else {}
    scores = format_reward(completions, **kwargs)
    assert len(scores) == len(completions)
    assert all(isinstance(score, float) and 0.0 <= score <= 1.0 for score in scores)


# --- every config field -----------------------------------------------------------------------

map_texts = st.text(alphabet=st.sampled_from("SFHG/\n \tx"), max_size=40)
field_values = st.one_of(
    json_like,
    st.integers(min_value=-3, max_value=70),
    st.floats(min_value=-2e6, max_value=2e6),
    st.sampled_from([*PARSING_MODES, "first", "FIRST_TAG", "", "frozen_lake"]),
    map_texts,
    st.lists(st.text(alphabet=st.sampled_from("SFHG x"), max_size=6), max_size=6),
    st.sampled_from(["SF/FG", "SFF/FHF/FFG", ["SF", "FG"], "S" * 9000, ["F" * 129, "FG"]]),
)
"""Arbitrary JSON-like values, plus values near each field's bounds and map-like text."""


def assert_only_config_errors(env_config, fields):
    """Build the env; it works or raises one InvalidConfigError whose problems name `fields`.

    An unknown key "" is reported on field `env_config`, the name of the whole config.
    """
    fields = {field or "env_config" for field in fields}
    try:
        env = FrozenLakeEnv(env_config)
    except InvalidConfigError as error:
        assert error.problems
        text = str(error)
        assert text.startswith("invalid env_config for env ")
        for problem in error.problems:
            assert problem.field in fields, (problem.field, fields)
            assert f"  - {printable(problem.field)}: " in text  # control characters escaped
        return None
    assert isinstance(env.config, FrozenLakeConfig)
    return env


@SETTINGS
@given(field=st.sampled_from(FIELDS), value=field_values)
def test_any_value_of_any_field_validates_or_raises_only_the_config_error(field, value):
    env = assert_only_config_errors({field: value}, {field})
    if env is not None and field != "map":  # map is stored as a tuple of rows
        assert getattr(env.config, field) == value


@SETTINGS
@given(
    env_config=st.dictionaries(
        st.sampled_from(FIELDS) | st.text(max_size=10), field_values, max_size=len(FIELDS) + 2
    )
)
def test_any_env_config_validates_or_raises_only_the_config_error(env_config):
    assert_only_config_errors(env_config, {*env_config, "p"})  # p: no solvable random map


@SETTINGS
@given(env_config=json_like.filter(lambda value: not isinstance(value, dict)))
def test_an_env_config_that_is_not_a_dict_is_one_config_error(env_config):
    if env_config is None:  # None means "no config": every default
        assert FrozenLakeEnv(env_config).config == FrozenLakeConfig()
        return
    try:
        validate_config(FrozenLakeConfig, env_config, "frozen_lake")
    except InvalidConfigError as error:
        assert [problem.field for problem in error.problems] == ["env_config"]
    else:
        raise AssertionError(f"{env_config!r:.80} validated")


@st.composite
def valid_env_configs(draw: st.DrawFn) -> dict:
    """Valid env_configs: any subset of the fields, each with a value inside its bounds."""
    reward = st.floats(-1e6, 1e6) | st.integers(-(10**6), 10**6)
    optional = {
        "name": st.text(max_size=200),
        "seed": st.none() | st.integers(0, 2**64 - 1),
        "size": st.integers(2, 64),
        "p": st.floats(0.5, 1.0),
        "is_slippery": st.booleans(),
        "max_steps": st.none() | st.integers(1, 10_000),
        "goal_reward": reward,
        "hole_reward": reward,
        "step_reward": reward,
        "invalid_action_reward": reward,
        "action_parsing": st.sampled_from(PARSING_MODES),
        "text_style": st.sampled_from(TEXT_STYLES),
    }
    env_config = draw(st.fixed_dictionaries({}, optional=optional))
    if env_config.get("text_style") == "ms_swift":  # the plugin's words have none for these
        env_config.pop("is_slippery", None)
        env_config.pop("max_steps", None)
    if draw(st.booleans()):  # an explicit map instead of a random one, in any accepted form
        size = draw(st.integers(2, 8))
        rows = generate_random_map(size, 0.8, draw(st.integers(0, 10_000)))
        separator = draw(st.sampled_from(["/", "\n", None]))
        env_config["map"] = list(rows) if separator is None else separator.join(rows)
        if "size" in env_config:
            env_config["size"] = size
    return env_config


@SETTINGS
@given(env_config=valid_env_configs())
def test_valid_configs_round_trip(env_config):
    config = validate_config(FrozenLakeConfig, env_config, "frozen_lake")
    assert FrozenLakeConfig.model_validate(config.model_dump()) == config
    assert FrozenLakeConfig.model_validate(json.loads(json.dumps(config.model_dump()))) == config
    assert FrozenLakeConfig.model_validate_json(config.model_dump_json()) == config
    assert FrozenLakeConfig.model_validate(config.model_dump(exclude_unset=True)) == config


@ENV_SETTINGS
@given(env_config=valid_env_configs())
def test_a_valid_config_builds_the_same_env_after_a_json_round_trip(env_config):
    env = FrozenLakeEnv(env_config)
    again = FrozenLakeEnv(json.loads(json.dumps(env.config.model_dump())))
    assert again.config == env.config
    if env.config.seed is not None or env.config.map is not None:  # else a fresh random lake
        assert again.map == env.map


# --- step on arbitrary messages ---------------------------------------------------------------

small_lakes = st.builds(
    lambda size, seed, mode, slippery, max_steps, style: {
        "size": size,
        "seed": seed,
        "action_parsing": mode,
        "text_style": style,
        # the ms-swift example's words have none for slippery ice or a step limit
        "is_slippery": slippery and style == "swift_gym",
        "max_steps": max_steps if style == "swift_gym" else None,
    },
    st.integers(2, 6),
    st.integers(0, 1000),
    st.sampled_from(PARSING_MODES),
    st.booleans(),
    st.none() | st.integers(1, 8),
    st.sampled_from(TEXT_STYLES),
)


@ENV_SETTINGS
@given(env_config=small_lakes, turns=st.lists(message_lists, min_size=1, max_size=8))
@example(
    env_config={"size": 2, "seed": 0, "action_parsing": "upstream"},
    turns=[[{"role": "assistant", "content": "r\u0131ght"}]],
)
@example(
    env_config={"size": 2, "seed": 0, "action_parsing": "upstream", "text_style": "ms_swift"},
    turns=[[{"role": "assistant", "content": "<action>R\u0130GHT</action>"}]],
)
def test_step_never_raises_on_any_messages(env_config, turns):
    async def play():
        env = FrozenLakeEnv(env_config)
        await env.reset()
        for messages in turns:
            before = copy.deepcopy(messages)
            observation, reward, done, info = await env.step(messages)
            assert isinstance(observation, str) and observation.isascii()
            assert type(reward) is float and math.isfinite(reward)
            assert type(done) is bool
            assert json.loads(json.dumps(info)) == info
            assert info["action"] is None or info["action"] in ACTIONS
            assert messages == before  # never mutated
        await env.close()

    asyncio.run(play())
