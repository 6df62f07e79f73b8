"""The examples feedback is made of: read from the prompts' docstrings in their several
spellings, and each one true of HumanEval's canonical solution (run in the sandbox), so that
feedback never pushes a model away from a right answer."""

from __future__ import annotations

import asyncio

import pytest
from swift_gym_code.examples import KNOWN_WRONG, Example, coverage, examples_of, parse_examples
from swift_gym_code.grading import run_examples
from swift_gym_code.problems import problems

from swift_gym.sandbox import SandboxLimits


def test_the_spellings_of_an_example():
    prompt = (
        "def f(x):\n"
        '    """\n'
        "    >>> f(1)\n    2\n"
        "    >>> round(f(2), 2) # rounded\n    3.0\n"
        "    >>> f(3) == 4\n"
        "    f(5) ==> true\n"
        "    for f(6) == 7\n"
        "    f(8) # => 'nine'\n"
        "    For x = [1, 2] the output should be 10\n"
        "    Input: x = 11\n    Output: 12\n"
        "    f(a) => 13\n"  # an unquoted name, not a literal: prose
        "    f(4) = f(3) + 1\n"  # a derivation, not a value
        '    """\n'
    )
    assert parse_examples(prompt, "f") == (
        Example("f(1)", "2"),
        Example("round(f(2), 2)", "3.0"),
        Example("f(3)", "4"),
        Example("f(5)", "True"),
        Example("f(6)", "7"),
        Example("f(8)", "'nine'"),
        Example("f(x = [1, 2])", "10"),
        Example("f(x = 11)", "12"),
    )


def test_the_canonical_solutions_pass_every_example(bwrap):
    with_examples, count = coverage()
    assert with_examples >= 150 and count >= 420  # 152 problems and 433 examples today

    async def check_all():
        gate = asyncio.Semaphore(8)

        async def one(problem):
            async with gate:
                found = await run_examples(
                    problem, problem.solution, examples_of(problem), SandboxLimits()
                )
                return problem, found

        return await asyncio.gather(*(one(p) for p in problems() if examples_of(p)))

    for problem, found in asyncio.run(check_all()):
        assert found.stage == "examples", (problem.task_id, found)
        assert len(found.examples) == len(examples_of(problem))
        failing = [e for e in found.examples if not e["passed"]]
        assert not failing, (problem.task_id, failing)


@pytest.mark.parametrize("task_id", sorted(KNOWN_WRONG))
def test_each_known_wrong_example_is_in_its_prompt(task_id):
    problem = problems()[int(task_id.split("/")[1])]
    parsed = {str(example) for example in parse_examples(problem.prompt, problem.entry_point)}
    assert KNOWN_WRONG[task_id] <= parsed
