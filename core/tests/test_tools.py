"""Tools an env offers: schemas checked when offered, calls checked into arguments or an error
result the model can read (never an exception), and step results with tool results."""

from __future__ import annotations

import asyncio
import json
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import swift_gym
from swift_gym import (
    Env,
    InvalidStepError,
    InvalidToolsError,
    StepResult,
    ToolCall,
    ToolResult,
    ToolSet,
    as_step_result,
    offered_tools,
)
from swift_gym.tools.schema import SchemaError, compile_schema, describe
from swift_gym.tools.toolset import MAX_ARGUMENT_CHARS, MAX_ARGUMENT_DEPTH, MAX_TOOLS

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 1, "maxLength": 50},
                "unit": {"type": "string", "enum": ["c", "f"]},
                "days": {"type": "integer", "minimum": 1, "maximum": 7},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            },
            "required": ["city", "unit"],
            "additionalProperties": False,
        },
    },
}
SEARCH = {"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}
TOOLS = ToolSet([WEATHER, SEARCH])


def call(arguments: str, name: str = "get_weather", id: str = "call_1") -> ToolCall:
    return ToolCall(id=id, name=name, arguments=arguments)


def error_of(arguments: str, name: str = "get_weather") -> str:
    """The content of the error result the call gets; fails the test if the call passes."""
    checked = TOOLS.check(call(arguments, name))
    assert isinstance(checked, ToolResult), f"expected an error result, got {checked!r}"
    assert checked.is_error
    assert checked.tool_call_id == "call_1"
    assert checked.name == name
    assert checked.content.startswith("Error: ")
    assert len(checked.content) <= 1200
    checked.content.encode("utf-8")  # the model reads it: always valid UTF-8
    return checked.content


# Calls that pass


def test_a_valid_call_gives_its_arguments() -> None:
    arguments = {"city": "Oslo", "unit": "c", "days": 3, "tags": ["a"], "note": None}
    assert TOOLS.check(call(json.dumps(arguments))) == arguments


def test_an_integer_may_be_written_as_a_whole_float_and_empty_arguments_are_an_empty_object() -> (
    None
):
    assert TOOLS.check(call('{"city": "x", "unit": "f", "days": 2.0}'))["days"] == 2.0
    assert TOOLS.check(call("", name="search")) == {}
    assert TOOLS.check(call("  ", name="search")) == {}


def test_parsed_arguments_of_a_call() -> None:
    assert call('{"a": 1}').parsed_arguments() == {"a": 1}
    assert call("").parsed_arguments() == {}
    with pytest.raises(ValueError):
        call("{oops").parsed_arguments()


# Calls that get an error result


def test_unknown_tool_names_the_tools_and_the_closest() -> None:
    text = error_of("{}", name="get_wether")
    assert "unknown tool 'get_wether'" in text
    assert "Did you mean 'get_weather'?" in text
    assert "get_weather, search" in text


def test_a_call_without_a_name() -> None:
    assert "no function name" in error_of("{}", name="")


def test_arguments_not_json() -> None:
    text = error_of('{"city": "Oslo", "unit": ')
    assert "not valid JSON" in text
    assert "column" in text


def test_nan_and_infinity_are_not_json() -> None:
    assert "not valid JSON" in error_of('{"city": "x", "unit": "c", "days": NaN}')
    assert "not valid JSON" in error_of('{"city": "x", "unit": "c", "days": -Infinity}')


def test_arguments_not_an_object() -> None:
    assert "must be a JSON object" in error_of('["Oslo", "c"]')
    assert "not a list" in error_of('["Oslo", "c"]')
    assert "not a string" in error_of('"Oslo"')


def test_schema_mismatches_name_the_place_and_the_rule() -> None:
    assert "unit: must be one of 'c', 'f' (got 'kelvin')" in error_of(
        '{"city": "x", "unit": "kelvin"}'
    )
    assert "missing required property 'unit'" in error_of('{"city": "x"}')
    assert "unexpected property 'colour'" in error_of('{"city": "x", "unit": "c", "colour": 1}')
    assert "days: must be an integer (got 'three')" in error_of(
        '{"city": "x", "unit": "c", "days": "three"}'
    )
    assert "days: must be at most 7 (got 9)" in error_of('{"city": "x", "unit": "c", "days": 9}')
    assert "days: must be at least 1" in error_of('{"city": "x", "unit": "c", "days": 0}')
    assert "days: must be an integer (got 1.5)" in error_of(
        '{"city": "x", "unit": "c", "days": 1.5}'
    )
    assert "city: must be at least 1 characters" in error_of('{"city": "", "unit": "c"}')
    assert "tags[1]: must be a string (got 2)" in error_of(
        '{"city": "x", "unit": "c", "tags": ["a", 2]}'
    )
    assert "tags: must have at most 3 items" in error_of(
        '{"city": "x", "unit": "c", "tags": ["a", "b", "c", "d"]}'
    )
    assert "note: must match one of" in error_of('{"city": "x", "unit": "c", "note": 3}')


def test_a_boolean_is_not_a_number_and_true_is_not_one() -> None:
    tools = ToolSet([tool("f", {"type": "object", "properties": {"n": {"enum": [1, 2]}}})])
    for bad in ("true", "1.5", '"1"'):
        result = tools.check(ToolCall("c", "f", f'{{"n": {bad}}}'))
        assert isinstance(result, ToolResult) and "must be one of 1, 2" in result.content
    assert tools.check(ToolCall("c", "f", '{"n": 1.0}')) == {"n": 1.0}
    counted = ToolSet([tool("g", {"type": "object", "properties": {"n": {"type": "number"}}})])
    result = counted.check(ToolCall("c", "g", '{"n": false}'))
    assert isinstance(result, ToolResult) and "must be a number (got False)" in result.content


def test_huge_arguments_are_refused_before_parsing() -> None:
    text = error_of('{"city": "' + "x" * MAX_ARGUMENT_CHARS + '", "unit": "c"}')
    assert f"at most {MAX_ARGUMENT_CHARS:,}" in text


def test_deep_arguments_are_refused() -> None:
    deep = '{"city": "x", "unit": "c", "tags": ' + "[" * 5000 + "]" * 5000 + "}"
    assert f"nested more than {MAX_ARGUMENT_DEPTH} deep" in error_of(deep)
    just = "[" * (MAX_ARGUMENT_DEPTH - 2) + "]" * (MAX_ARGUMENT_DEPTH - 2)  # 32 levels in all
    assert "must be a string" in error_of('{"city": "x", "unit": "c", "tags": [' + just + "]}")


def test_lone_surrogates_raw_or_escaped_are_refused_and_never_echoed_raw() -> None:
    for text in ('{"city": "\ud800", "unit": "c"}', '{"city": "\\ud800", "unit": "c"}'):
        assert "lone surrogate" in error_of(text)
    assert "lone surrogate" in error_of('{"\\udfff": 1}', name="search")
    paired = TOOLS.check(call('{"city": "\\ud83d\\ude00", "unit": "c"}'))
    assert paired == {"city": "\U0001f600", "unit": "c"}
    assert "\\ud800" in error_of("{}", name="get\ud800weather")  # the name, escaped


def test_control_characters_in_a_name_are_escaped_in_the_error() -> None:
    text = error_of("{}", name="\x1b[31mred")
    assert "\x1b" not in text and "\\x1b" in text


def test_a_long_name_is_cut_in_the_error() -> None:
    assert len(error_of("{}", name="n" * 100_000)) < 1000


def test_a_tool_call_checks_its_own_fields() -> None:
    with pytest.raises(TypeError, match="arguments"):
        ToolCall("c", "f", {"a": 1})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="content"):
        ToolResult("c", "f", 3)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(
    name=st.one_of(st.sampled_from(["get_weather", "search"]), st.text(max_size=80)),
    arguments=st.one_of(
        st.text(max_size=300),
        st.text(alphabet=st.sampled_from([*'{}[]":,\\ud80aeNI1.-', "\ud800"]), max_size=80),
        st.recursive(
            st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20)),
            lambda inner: st.one_of(
                st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
            ),
            max_leaves=20,
        ).map(lambda value: json.dumps(value, allow_nan=True)),
        st.fixed_dictionaries(
            {"city": st.text(max_size=60), "unit": st.sampled_from(["c", "f", "k"])},
            optional={"days": st.one_of(st.integers(), st.floats(), st.text(max_size=3))},
        ).map(json.dumps),
    ),
)
def test_check_never_raises_and_answers_in_readable_text(name: str, arguments: str) -> None:
    checked = TOOLS.check(ToolCall("call_1", name, arguments))
    if isinstance(checked, ToolResult):
        assert checked.is_error and checked.content.startswith("Error: ")
        checked.content.encode("utf-8")
    else:
        assert isinstance(checked, dict)


SCHEMAISH = st.recursive(
    st.one_of(
        st.booleans(),
        st.none(),
        st.integers(-3, 3),
        st.sampled_from(["string", "integer", "number", "object", "array", "null", "x"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "enum",
                    "const",
                    "properties",
                    "required",
                    "items",
                    "anyOf",
                    "minimum",
                    "maxLength",
                    "minItems",
                    "additionalProperties",
                    "description",
                    "a",
                    "u",
                ]
            ),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(schema=SCHEMAISH, value=SCHEMAISH)
def test_a_schema_compiles_or_is_refused_and_its_checker_never_raises(schema, value) -> None:
    try:
        checker = compile_schema(schema)
    except SchemaError as error:
        assert error.reason
        return
    mismatch = checker(value)
    assert mismatch is None or describe(mismatch)


# Schemas, checked when offered


def tool(name: str, parameters: object = None, **function: object) -> dict:
    body = {"name": name, **function}
    if parameters is not None:
        body["parameters"] = parameters
    return {"type": "function", "function": body}


def offer_error(tools: object) -> str:
    with pytest.raises(InvalidToolsError) as caught:
        ToolSet(tools, label="my_env")  # type: ignore[arg-type]
    text = str(caught.value)
    assert "my_env" in text
    return text


def test_offered_schemas_are_kept_as_openai_function_tools() -> None:
    assert list(TOOLS) == [WEATHER, SEARCH]
    assert TOOLS.names == ("get_weather", "search")
    bare = ToolSet([tool("ping")])
    assert bare[0]["function"]["parameters"] == {"type": "object", "properties": {}}


def test_a_copy_of_the_schemas_is_equal_and_the_receivers_to_change() -> None:
    copied = TOOLS.copy()
    assert copied == list(TOOLS)
    copied[0]["function"]["parameters"]["required"].append("days")
    assert TOOLS[0] == WEATHER and TOOLS.copy()[0] == WEATHER


def test_a_tool_set_pickles_and_checks_the_same_after() -> None:
    """Env instances travel between processes (ms-swift's Ray driver, a spawned worker)."""
    copy = pickle.loads(pickle.dumps(TOOLS))
    assert list(copy) == list(TOOLS) and copy.names == TOOLS.names
    bad = call('{"city": "x", "unit": "k"}')
    assert copy.check(bad) == TOOLS.check(bad)


def test_duplicate_names_are_refused() -> None:
    assert "duplicate tool name 'a'" in offer_error([tool("a"), tool("b"), tool("a")])


def test_bad_names_are_refused() -> None:
    assert "^[a-zA-Z0-9_-]{1,64}$" in offer_error([tool("get weather")])
    offer_error([tool("x" * 65)])
    offer_error([tool("")])


def test_bad_schemas_are_refused_with_their_place() -> None:
    text = offer_error([tool("a", {"type": "object", "properties": {"u": {"enum": []}}})])
    assert "tools[0].function.parameters.properties.u.enum" in text
    assert "parameters must be a JSON Schema object" in offer_error([tool("a", {"type": "array"})])
    assert "unknown type 'strnig'" in offer_error(
        [tool("a", {"type": "object", "properties": {"u": {"type": "strnig"}}})]
    )
    text = offer_error([tool("a", {"type": "object", "required": "u"})])
    assert "required" in text and "list of property names" in text
    text = offer_error([tool("a", {"type": "object", "properties": {"u": {"minLength": -1}}})])
    assert "minLength" in text


def test_a_schema_no_call_can_match_is_refused() -> None:
    closed = {"type": "object", "properties": {"a": {}}, "required": ["b"]}
    text = offer_error([tool("f", {**closed, "additionalProperties": False})])
    assert "required property 'b' is not among the properties" in text
    ToolSet([tool("f", closed)])  # open: 'b' may come as an additional property


def test_keywords_the_checker_does_not_understand_are_refused_by_name() -> None:
    text = offer_error([tool("a", {"type": "object", "properties": {"u": {"pattern": "^a+$"}}})])
    assert "'pattern' is not supported" in text
    text = offer_error([tool("a", {"type": "object", "$ref": "#/$defs/x"})])
    assert "'$ref' is not supported" in text


def test_bad_tool_entries_are_refused() -> None:
    assert "must be a list" in offer_error({"name": "a"})
    assert "'type' must be 'function'" in offer_error([{"type": "code", "function": {}}])
    assert "did you mean 'parameters'" in offer_error(
        [{"type": "function", "function": {"name": "a", "parameter": {}}}]
    )
    assert "description must be a string" in offer_error([tool("a", description=3)])
    assert f"at most {MAX_TOOLS}" in offer_error([tool(f"t{i}") for i in range(MAX_TOOLS + 1)])


def test_every_problem_is_listed() -> None:
    text = offer_error([tool("a b"), tool("c", {"type": "string"})])
    assert "tools[0]" in text and "tools[1]" in text


# The env contract


class TextEnv(Env):
    async def reset(self, request=None):
        return "hi", {}, ""

    async def step(self, messages):
        return "ok", 1.0, True, {}


class WeatherEnv(TextEnv):
    async def step(self, messages):
        results = []
        for tool_call in swift_gym.tool_calls(messages):
            checked = self.toolset.check(tool_call)
            if isinstance(checked, ToolResult):
                results.append(checked)
            else:
                results.append(ToolResult.for_call(tool_call, f"{checked['city']}: sunny"))
        return StepResult(tool_results=results, reward=0.5)

    def tools(self):
        return [WEATHER]


def test_a_text_env_offers_no_tools() -> None:
    env = TextEnv()
    assert env.tools() == []
    assert len(offered_tools(env)) == 0


def test_offered_tools_checks_what_the_env_offers() -> None:
    class Broken(TextEnv):
        def tools(self):
            return [tool("a"), tool("a")]

    assert offered_tools(WeatherEnv()).names == ("get_weather",)
    with pytest.raises(InvalidToolsError, match="Broken"):
        offered_tools(Broken())
    assert offered_tools(type("Holds", (TextEnv,), {"tools": lambda self: TOOLS})()) is TOOLS


def test_a_tool_env_answers_each_call_with_a_result() -> None:
    env = WeatherEnv()
    env.toolset = offered_tools(env)
    asyncio.run(env.reset())
    reply = {
        "role": "assistant",
        "content": "let me look",
        "tool_calls": [
            {
                "id": "a",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Oslo", "unit": "c"}'},
            },
            {"id": "b", "type": "function", "function": {"name": "nope", "arguments": "{}"}},
        ],
    }
    calls = swift_gym.tool_calls([reply])
    result = as_step_result(asyncio.run(env.step([reply])), calls)
    assert [(r.tool_call_id, r.name, r.is_error) for r in result.tool_results] == [
        ("a", "get_weather", False),
        ("b", "nope", True),
    ]
    assert result.tool_results[0].content == "Oslo: sunny"
    assert (result.reward, result.done, result.observation) == (0.5, False, "")


# Step results


def test_the_text_four_tuple_normalises_unchanged() -> None:
    result = as_step_result(("obs", 1, True, {"k": 1}))
    assert result == StepResult("obs", 1.0, True, {"k": 1})
    assert isinstance(result.reward, float)
    assert result.tool_results == ()


def test_a_step_result_unpacks_like_the_four_tuple_for_text_only_schedulers() -> None:
    results = [ToolResult("a", "f", "42"), ToolResult("b", "g", "7")]
    observation, reward, done, info = StepResult("then?", 1.0, False, {}, results)
    assert observation == (
        "<tool_response>\n42\n</tool_response>\n<tool_response>\n7\n</tool_response>\nthen?"
    )
    assert (reward, done, info) == (1.0, False, {})
    assert tuple(StepResult("plain")) == ("plain", 0.0, False, {})


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (("obs", 1.0, True), "(observation, reward, done, info)"),
        ((3, 1.0, True, {}), "observation must be a str"),
        (("o", True, True, {}), "reward must be an int or float"),
        (("o", float("nan"), True, {}), "reward must be finite"),
        (["o", 1.0, True, {}], "(observation, reward, done, info)"),
        (("o", 1.0, 1, {}), "done must be a bool"),
        (("o", 1.0, True, []), "info must be a dict"),
        (StepResult(tool_results=["x"]), "tool_results[0] must be a ToolResult"),  # type: ignore[list-item]
    ],
)
def test_a_malformed_step_result_is_an_error_naming_the_field(value, message) -> None:
    with pytest.raises(InvalidStepError) as caught:
        as_step_result(value)
    assert message in str(caught.value)


def test_results_must_answer_each_call_once_by_id_and_name() -> None:
    calls = [ToolCall("a", "f", "{}"), ToolCall("b", "g", "{}")]
    with pytest.raises(InvalidStepError, match="no result for call 'b'"):
        as_step_result(StepResult(tool_results=[ToolResult("a", "f", "")]), calls)
    with pytest.raises(InvalidStepError, match="two results for call 'a'"):
        as_step_result(
            StepResult(tool_results=[ToolResult("a", "f", ""), ToolResult("a", "f", "")]), calls[:1]
        )
    with pytest.raises(InvalidStepError, match="call 'a' is to tool 'f', not 'g'"):
        as_step_result(StepResult(tool_results=[ToolResult("a", "g", "")]), calls[:1])
    with pytest.raises(InvalidStepError, match="no call 'z'"):
        as_step_result(StepResult(tool_results=[ToolResult("z", "f", "")]), [])
    results = [ToolResult("b", "g", "2"), ToolResult("a", "f", "1")]
    assert as_step_result(StepResult(tool_results=results), calls).tool_results == tuple(results)


# A ToolSet is a list, for receivers that ask for one


def test_a_tool_set_is_a_list_that_ms_swifts_template_takes_as_it_is() -> None:
    """ms-swift's template (`Template._preprocess_tools`, swift/template/base.py) takes `tools`
    that are `isinstance(tools, (list, tuple))` and raises ValueError on anything else; it
    builds its own list from them, so the ToolSet itself is not changed."""
    assert isinstance(TOOLS, list)
    taken = [tool for tool in TOOLS] if isinstance(TOOLS, (list, tuple)) else None
    assert taken == [WEATHER, SEARCH]
    assert TOOLS == [WEATHER, SEARCH] and TOOLS[1:] == [SEARCH] and type(TOOLS[1:]) is list
    assert json.loads(json.dumps(TOOLS)) == [WEATHER, SEARCH]
    assert json.dumps(TOOLS) == json.dumps([WEATHER, SEARCH])


@pytest.mark.parametrize(
    "change",
    [
        lambda tools: tools.append(SEARCH),
        lambda tools: tools.extend([SEARCH]),
        lambda tools: tools.insert(0, SEARCH),
        lambda tools: tools.pop(),
        lambda tools: tools.remove(WEATHER),
        lambda tools: tools.clear(),
        lambda tools: tools.sort(key=str),
        lambda tools: tools.reverse(),
        lambda tools: tools.__setitem__(0, SEARCH),
        lambda tools: tools.__delitem__(0),
        lambda tools: tools.__iadd__([SEARCH]),
        lambda tools: tools.__imul__(2),
    ],
)
def test_a_tool_set_cannot_change_after_its_schemas_were_checked(change) -> None:
    tools = ToolSet([WEATHER, SEARCH])
    with pytest.raises(TypeError, match=r"copy\(\)"):
        change(tools)
    assert tools == [WEATHER, SEARCH] and tools.names == ("get_weather", "search")
    assert isinstance(tools.check(call('{"city": "x", "unit": "c"}')), dict)
    joined = tools + [SEARCH]  # noqa: RUF005 (what `+` gives is the point)
    assert type(joined) is list and joined == [WEATHER, SEARCH, SEARCH]


def test_a_tool_set_pickles_and_copies_as_a_tool_set() -> None:
    import copy

    for again in (pickle.loads(pickle.dumps(TOOLS)), copy.copy(TOOLS), copy.deepcopy(TOOLS)):
        assert type(again) is ToolSet and again == TOOLS and again.names == TOOLS.names
        assert isinstance(again.check(call('{"city": "x", "unit": "k"}')), ToolResult)
