"""`code.humaneval`: write the function a HumanEval prompt asks for; its hidden tests decide.

An episode is one of the 164 problems (picked by `task_id`, else by `seed`). The model replies
with code (a ```python block, or the bare function, or the body that completes the prompt);
the hidden tests run on it in swift-gym's sandbox under the operator's limits
(`SWIFT_GYM_SANDBOX_LIMITS`), and the reward is 1.0 when they all pass, else 0.0. With
`feedback: examples`, a failing answer is told how it did on the examples its own prompt shows
(never anything of the hidden tests) and may answer again, up to `max_turns` answers.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from swift_gym import Env, EnvConfig, reply_text

from .answers import MAX_CODE_CHARS, extract_code, fenced
from .examples import examples_of
from .feedback import feedback_text
from .grading import Verdict, run_examples, run_tests
from .problems import COUNT, PREFIX, index_of, problem, problems

MAX_TURNS_LIMIT = 10
SYSTEM_PROMPT = (
    "You are an expert Python programmer. Complete the function the user gives you. Reply with "
    "the whole function (its imports included) in one ```python code block. Use only Python's "
    "standard library."
)
OVER = "The episode is over; no more answers are graded. Start a new episode."


class HumanEvalConfig(EnvConfig):
    """Config of `HumanEvalEnv`: which problem, and whether failing answers get feedback."""

    task_id: str | None = Field(
        None,
        max_length=20,
        description=f"The problem, {PREFIX}0 to {PREFIX}{COUNT - 1} (or its number as text). "
        f"None: the problem of the seed (seed % {COUNT}), or a random one without a seed.",
    )
    feedback: Literal["none", "examples"] = Field(
        "none",
        description="none: one answer, graded. examples: a failing answer is told how it did "
        "on the examples in its prompt's docstring (never the hidden tests) and may answer "
        "again, up to max_turns answers.",
    )
    max_turns: int | None = Field(
        None,
        ge=1,
        le=MAX_TURNS_LIMIT,
        description="Answers per episode: 1 with feedback none (the default there, and the "
        "only value), 3 by default with feedback examples.",
    )

    @model_validator(mode="after")
    def _checked(self) -> HumanEvalConfig:
        if self.task_id is not None and index_of(self.task_id) is None:
            raise ValueError(
                f"task_id {self.task_id[:40]!r} is no HumanEval problem: "
                f"{PREFIX}0 to {PREFIX}{COUNT - 1}"
            )
        if self.feedback == "none" and self.max_turns not in (None, 1):
            raise ValueError(
                "max_turns above 1 needs feedback 'examples' (with feedback 'none' an episode "
                "is one answer)"
            )
        return self

    def turns(self) -> int:
        if self.max_turns is not None:
            return self.max_turns
        return 3 if self.feedback == "examples" else 1


class HumanEvalEnv(Env):
    """One HumanEval problem: the prompt in, a function out, graded by its hidden tests in the
    sandbox."""

    config_model: ClassVar[type[EnvConfig]] = HumanEvalConfig
    config: HumanEvalConfig
    tool_use: ClassVar[str | None] = "no"

    def __init__(self, env_config: Mapping[str, Any] | EnvConfig | None = None):
        super().__init__(env_config)
        from swift_gym.sandbox import operator_limits

        self.limits = operator_limits()  # the operator's, never a row's
        self._rng: random.Random | None = None
        self._index: int | None = None
        self._turn = 0
        self._done = False

    def _pick(self) -> int:
        config = self.config
        if config.task_id is not None:
            found = index_of(config.task_id)
            assert found is not None  # the config's validator checked it
            return found
        if config.seed is not None:
            return config.seed % COUNT
        if self._rng is None:  # seedless: from os.urandom, never the global random
            self._rng = random.Random()
        return self._rng.randrange(COUNT)

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        """Show the problem's prompt (`request` is not used)."""
        problems()  # read and checked once per process
        self._index = self._pick()
        self._turn, self._done = 0, False
        current = problem(self._index)
        info = {
            "status": "reset",
            "task_id": current.task_id,
            "entry_point": current.entry_point,
            "feedback": self.config.feedback,
            "max_turns": self.config.turns(),
            "examples": len(examples_of(current)),
        }
        return _question(current.prompt), info, SYSTEM_PROMPT

    async def step(self, messages: list[dict[str, Any]]) -> tuple[str, float, bool, dict[str, Any]]:
        """Grade the newest reply: reward 1.0 when every hidden test passes (the episode ends),
        else 0.0; with feedback and answers left, the observation holds the examples' results."""
        if self._index is None:
            await self.reset()
        if self._done:
            return OVER, 0.0, True, {"status": "episode_over", "task_id": self._task_id()}
        current = problem(self._index)  # type: ignore[arg-type]
        self._turn += 1
        left = self.config.turns() - self._turn
        code = extract_code(reply_text(messages))
        verdict = await self._grade(current, code)
        passed = verdict.passed
        self._done = passed or left <= 0
        info = self._info(verdict, code, left)
        examples = None
        ran = verdict.stage not in ("no_code", "too_long")
        if not passed and ran and self.config.feedback == "examples":
            examples = await run_examples(current, code, examples_of(current), self.limits)
            info["examples"] = examples.examples
            if examples.stage != "examples":
                info["examples_error"] = examples.error or examples.limit
        observation = feedback_text(verdict, examples, left, self.config.feedback, self.limits)
        return observation, 1.0 if passed else 0.0, self._done, info

    async def _grade(self, current: Any, code: str) -> Verdict:
        if not code.strip():
            return Verdict("no_code", error="the reply holds no code")
        if len(code) > MAX_CODE_CHARS:
            return Verdict(
                "too_long", error=f"the code is {len(code):,} characters; at most "
                f"{MAX_CODE_CHARS:,} are run"
            )  # fmt: skip
        return await run_tests(current, code, self.limits)

    def _task_id(self) -> str | None:
        return problem(self._index).task_id if self._index is not None else None

    def _info(self, verdict: Verdict, code: str, left: int) -> dict[str, Any]:
        info: dict[str, Any] = {
            "status": verdict.stage,
            "task_id": self._task_id(),
            "passed": verdict.passed,
            "turn": self._turn,
            "turns_left": max(0, left) if not self._done else 0,
            "code_chars": len(code),
            "metrics": {
                "success": 1.0 if verdict.passed else 0.0,
                "has_code": 0.0 if verdict.stage == "no_code" else 1.0,
                "syntax_ok": 0.0 if verdict.stage in ("no_code", "too_long", "syntax") else 1.0,
            },
        }
        if verdict.assertion:
            info["failed_test"] = verdict.assertion
        if verdict.error:
            info["error"] = verdict.error
        if verdict.limit:
            info["limit"] = verdict.limit
        if verdict.output:
            info["output"] = verdict.output
        return info

    def max_turns_hint(self) -> int:
        """`max_turns`: 1 without feedback, 3 by default with it."""
        return self.config.turns()

    def oracle_reply(self) -> str:
        """HumanEval's canonical solution, completed into the whole function, in a ```python
        block."""
        if self._index is None:
            raise RuntimeError("no episode yet: call reset() first")
        return fenced(problem(self._index).solution)

    @property
    def done(self) -> bool:
        return self._done


def _question(prompt: str) -> str:
    return (
        "Complete this Python function. Reply with the whole function in a ```python block.\n\n"
        f"```python\n{prompt.strip(chr(10))}\n```"
    )
