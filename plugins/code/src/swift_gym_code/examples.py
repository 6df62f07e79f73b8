"""The examples a HumanEval prompt shows in its docstring, as calls and expected values.

Feedback on a failing answer (`feedback: examples`) comes from these only, never from the hidden
tests: they are what the model was already shown. The prompts write them in a few ways, all read
here: doctest lines (`>>> f(1)` then `2`), one-line claims (`f(1) == 2`, `f(1) ➞ 2`,
`f(1) => 2`, `f(1) -> 2`, `f(1) should return 2`, with or without a leading "for"), and
`Input: x = 1` / `Output: 2` pairs. A line is kept only when both sides parse as Python
expressions. The prompts are the wheel's data, not a model's: parsing them here is safe.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass

from .problems import Problem, problems

MAX_EXAMPLES = 8
"""Examples checked per problem (the first ones); the prompts show at most a handful."""

_CLAIM = re.compile(r"\s*#?\s*(?:==>|==|➞|=>|->|=|should return|returns|should be)\s*(.+?)\s*$")
_FOR = re.compile(
    r"^\s*for\s+(\w+\s*=.+?),?\s+the\s+(?:output|result)\s+should\s+be\s+(.+?)\s*$",
    re.IGNORECASE,
)
_INPUT = re.compile(r"^\s*Input\s*:\s*(.+?)\s*$", re.IGNORECASE)
_OUTPUT = re.compile(r"^\s*Output\s*:\s*(.+?)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Example:
    """`call` (an expression calling the function) should equal `expected` (an expression)."""

    call: str
    expected: str

    def __str__(self) -> str:
        return f"{self.call} == {self.expected}"


KNOWN_WRONG: dict[str, frozenset[str]] = {
    "HumanEval/47": frozenset({"median([-10, 4, 6, 1000, 10, 20]) == 15.0"}),
    "HumanEval/116": frozenset(
        {
            "sort_array([1, 5, 2, 3, 4]) == [1, 2, 3, 4, 5]",
            "sort_array([-2, -3, -4, -5, -6]) == [-6, -5, -4, -3, -2]",
        }
    ),
    "HumanEval/130": frozenset({"tri(1) == 3", "tri(4) == 3"}),
    "HumanEval/148": frozenset({'bf("Earth", "Mercury") == ("Venus")'}),
}
"""Docstring examples that HumanEval's own canonical solution (and hidden tests) contradict, by
task id: feedback must not push a model away from a correct answer, so these are not checked
(`plugins/code/tests/test_humaneval_examples.py` runs every other example against the
canonical solution)."""


_WORDS = {"true": "True", "false": "False", "none": "None"}
"""Some prompts write Python's constants as JSON does (`f(1) => true`)."""


def _literal(text: str) -> bool:
    try:
        ast.literal_eval(text)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return False
    return True


def _example(call: str, expected: str) -> Example | None:
    """An example, when `call` calls one name with literal arguments (at least one) and
    `expected` is a literal: anything else is prose that only looks like code."""
    expected = _WORDS.get(expected.strip(), expected.strip())
    try:
        tree = ast.parse(call.strip(), mode="eval").body
    except (SyntaxError, ValueError):
        return None
    if not isinstance(tree, ast.Call) or not (tree.args or tree.keywords):
        return None
    arguments = [*tree.args, *(keyword.value for keyword in tree.keywords)]
    if any(not _literal(ast.unparse(argument)) for argument in arguments):
        return None
    return Example(call.strip(), expected) if _literal(expected) else None


def _call_end(line: str, start: int) -> int | None:
    """The index just past the call starting at `start` (its parentheses balanced)."""
    depth = 0
    quote = ""
    for index in range(start, len(line)):
        char = line[index]
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def _claim(line: str, entry_point: str) -> Example | None:
    """`f(...) == value` (and its spellings) on one line, with or without a leading "for"."""
    found = re.search(rf"(?<![\w.]){re.escape(entry_point)}\s*\(", line)
    if found is None:
        return None
    end = _call_end(line, found.start())
    if end is None:
        return None
    call = line[found.start() : end]
    rest = _CLAIM.match(line[end:])
    if rest is None:
        return None
    expected = rest.group(1).rstrip(".,;")
    if entry_point in expected:  # `f(3) = f(2) + f(1)`: a derivation, not a value
        return None
    return _example(call, expected)


def _for_claim(line: str, entry_point: str) -> Example | None:
    """`For x = [1, 2], y = 3 the output should be 6` as `f(x=[1, 2], y=3) == 6`."""
    said = _FOR.match(line)
    if said is None:
        return None
    call, expected = f"{entry_point}({said.group(1)})", said.group(2).rstrip(".,;")
    return _example(call, expected)


def _doctest(lines: list[str], at: int, entry_point: str) -> Example | None:
    """A `>>> call` line followed by its expected value's line (or `>>> call == value`)."""
    call = lines[at].strip().removeprefix(">>>").split(" #")[0].strip()
    claim = _claim(call, entry_point)
    if claim is not None and claim.call != call:
        return claim
    following = lines[at + 1].strip() if at + 1 < len(lines) else ""
    if entry_point not in call or not following or following.startswith(">>>"):
        return None
    try:  # a doctest may wrap the call (`round(find_zero([1, 2]), 2)`): any expression
        ast.parse(call, mode="eval")
    except (SyntaxError, ValueError):
        return None
    expected = _WORDS.get(following, following)
    return Example(call, expected) if _literal(expected) else None


def _input_output(lines: list[str], at: int, entry_point: str) -> Example | None:
    """`Input: a = 1, b = [2]` and, on a later line, `Output: 3` as `f(a=1, b=[2]) == 3`."""
    given = _INPUT.match(lines[at])
    if given is None:
        return None
    for line in lines[at + 1 : at + 4]:
        said = _OUTPUT.match(line)
        if said is not None:
            call = f"{entry_point}({given.group(1)})"
            expected = said.group(1)
            return _example(call, expected)
    return None


def parse_examples(prompt: str, entry_point: str) -> tuple[Example, ...]:
    """The examples of `prompt`'s docstring for `entry_point`, in order, without repeats."""
    docstring = _docstring(prompt, entry_point)
    lines = docstring.splitlines()
    found: list[Example] = []
    for at, line in enumerate(lines):
        if line.strip().startswith(">>>"):
            example = _doctest(lines, at, entry_point)
        else:
            example = (
                _input_output(lines, at, entry_point)
                or _for_claim(line, entry_point)
                or _claim(line, entry_point)
            )
        if example is not None and example not in found:
            found.append(example)
    return tuple(found[:MAX_EXAMPLES])


def _docstring(prompt: str, entry_point: str) -> str:
    """The text after `def entry_point(` in the prompt (its docstring, where the examples are)."""
    found = re.search(rf"^def {re.escape(entry_point)}\s*\(", prompt, re.M)
    return prompt[found.end() :] if found else prompt


@functools.cache
def examples_of(problem: Problem) -> tuple[Example, ...]:
    """The examples feedback checks for `problem` (those known to be wrong left out)."""
    wrong = KNOWN_WRONG.get(problem.task_id, frozenset())
    parsed = parse_examples(problem.prompt, problem.entry_point)
    return tuple(example for example in parsed if str(example) not in wrong)


def coverage() -> tuple[int, int]:
    """(problems with at least one example, examples in all): for the README and the tests."""
    counts = [len(examples_of(problem)) for problem in problems()]
    return sum(1 for count in counts if count), sum(counts)
