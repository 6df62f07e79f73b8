"""`ReasoningGymEnv`: one reasoning-gym task as a swift-gym env, scored by reasoning-gym.

Reset plays the item the episode's seed picks (see `items`) and shows its question; each step
reads the reply's `<answer>...</answer>` and scores it with the task's own `score_answer`
(`judge`: guarded where a scorer would run the answer, corrected where it pays non-answers).
With `attempts` above 1, a wrong answer is told its score (never the answer) and gets another
turn. With `tools: ["python"]` the episode also offers the sandboxed `python` tool
(`python_use`): a reply that calls it gets the tool's results and the turn does not count as an
answer; a reply without a call is the answer, as in a text episode. reasoning-gym runs in a
worker thread: a sudoku or zebra puzzle takes up to a second to make, and the event loop must
not wait for it.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping
from typing import Any, ClassVar

from swift_gym import (
    ConfigProblem,
    Env,
    EnvConfig,
    InvalidConfigError,
    StepResult,
    reply_text,
    tool_calls,
)
from swift_gym.tools import ToolResult

from .derive import ReasoningGymConfig
from .ids import VERIFIER_SCORED, env_name
from .items import item_for
from .judge import judge
from .python_use import PythonUse, tool_prompt
from .rejections import rejection_problems

OVER = "The episode is over; no more answers are scored. Start a new episode."


class ReasoningGymEnv(Env):
    """A reasoning-gym task: one question, `attempts` answers, reasoning-gym's score as reward.

    Each task's class (made in `envs`) sets `task` and its derived `config_model`.
    """

    task: ClassVar[str] = ""
    config_model: ClassVar[type[EnvConfig]] = ReasoningGymConfig
    config: ReasoningGymConfig

    def __init__(self, env_config: Mapping[str, Any] | EnvConfig | None = None):
        super().__init__(env_config)
        from reasoning_gym.utils import SYSTEM_PROMPTS

        config = self.config
        self.python: PythonUse | None = None
        if "python" in config.tools:
            from swift_gym.sandbox import operator_limits

            self.python = PythonUse(config.max_tool_calls, operator_limits())
        if config.system_prompt:
            self.system_prompt: str = config.system_prompt
        else:
            self.system_prompt = SYSTEM_PROMPTS[config.system_prompt_style]
            if self.python is not None:
                self.system_prompt += tool_prompt(config.max_tool_calls)
        self._rng: random.Random | None = None  # seedless episodes' own, made on first use
        self._dataset: Any = None
        self._entry: dict[str, Any] | None = None
        self._seed: int | None = None
        self._where: dict[str, Any] = {}
        self._attempt = 0
        self._steps = 0
        self._done = False
        self._solved = False
        self._best = 0.0

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        """Start an episode on the item of the config's seed; without one, on a random item of
        the first dataset build (`seed` below `size`, shown in info). `request` is not used.

        A config that reasoning-gym refuses only when it builds the dataset (composite's tasks'
        own configs) raises InvalidConfigError here.
        """
        await self._start()
        info = {"status": "reset", "step": 0, **self._where, "attempts": self.config.attempts}
        return self._question(), info, self.system_prompt

    async def _start(self) -> None:
        seed = self.config.seed
        if seed is None:  # an item of the first build, at random (one build, cached)
            if self._rng is None:  # from os.urandom, never the global one: made only if needed
                self._rng = random.Random()
            seed = self._rng.randrange(self.config.size)
        try:
            found = await asyncio.to_thread(item_for, self.config, seed)
        except Exception as error:  # the dataset's constructor refused the config
            problems = rejection_problems(
                error, self.task, type(self.config)._field_names(), self.config
            )
            raise InvalidConfigError(
                self._label(),
                [ConfigProblem(f or "env_config", r, v, has_value=bool(f)) for f, r, v in problems],
            ) from None
        self._dataset, self._entry, dataset_seed, index = found
        self._seed = seed
        self._where = {
            "task": self.task,
            "seed": seed,
            "dataset_seed": dataset_seed,
            "index": index,
        }
        self._attempt, self._done, self._solved, self._best = 0, False, False, 0.0
        self._steps = 0
        if self.python is not None:  # a new episode gets a new session and its whole budget
            await self.python.restart()

    def _scorer_task(self) -> str:
        """The task whose scorer scores this item (composite forwards to its item's task)."""
        if self.task == "composite" and self._entry is not None:
            metadata = self._entry.get("metadata")
            source = metadata.get("source_dataset") if isinstance(metadata, dict) else None
            return source if isinstance(source, str) else self.task
        return self.task

    def _label(self) -> str:
        name = self.env_config.get("name")
        return name if isinstance(name, str) else env_name(self.task)

    def _question(self) -> str:
        question = self._entry.get("question") if self._entry else None
        return question if isinstance(question, str) else str(question)

    async def step(self, messages: list[dict[str, Any]]) -> Any:
        """Score the answer in `messages[-1]`; the episode ends at a score of 1.0 or when the
        attempts are used up. The reward is the final answer's score, given on the last step
        (earlier steps earn 0), so an episode's total is the score of its last answer.

        With tools, a reply that calls them gets their results (a StepResult) and is no answer,
        while calls are left; once none are left, a reply that calls one is scored as an answer
        (its calls refused)."""
        if self._entry is None:
            await self._start()
        calls = tool_calls(messages) if self.python is not None else []
        if self._done:
            refused = [ToolResult.error(call, OVER) for call in calls]
            return self._result(OVER, 0.0, self._info("episode_over", 0.0, None, None), refused)
        if calls and self.python is not None and self.python.left > 0:
            results = await self.python.answer(calls)
            self._steps += 1
            return StepResult("", 0.0, False, self._info("tool_call", 0.0, None, None), results)
        refused = self.python.refuse(calls) if calls and self.python is not None else []
        judged = await asyncio.to_thread(
            judge, self._scorer_task(), self._dataset, self._entry, reply_text(messages)
        )
        answer, value, note = judged.answer, judged.value, judged.note
        self._attempt += 1
        self._steps += 1
        self._best = max(self._best, value)
        self._solved = value >= 1.0
        left = self.config.attempts - self._attempt
        self._done = self._solved or left <= 0
        status = "correct" if self._solved else ("no_answer" if answer is None else "wrong")
        if judged.refused:
            status = "refused"
        reward = value if self._done else 0.0
        info = self._info(status, value, judged.error, note)
        if judged.corrected is not None:
            info["scorer_score"], info["score_corrected"] = judged.scorer_value, judged.corrected
        return self._result(self._feedback(value, left, note), reward, info, refused)

    def _result(
        self, observation: str, reward: float, info: dict[str, Any], refused: list[ToolResult]
    ) -> Any:
        """A text episode's 4-tuple, or with tools a StepResult answering the refused calls."""
        if self.python is None:
            return observation, reward, self._done, info
        return StepResult(observation, reward, self._done, info, refused)

    def _feedback(self, value: float, left: int, note: str | None) -> str:
        """What the model reads after an answer: its score, never the stored answer."""
        if self._solved:
            return "Correct: the answer scored 1.0. The episode is over."
        said = f"Not accepted ({note})" if note else "Not correct"
        said += f": the answer scored {value:.3g} of 1.0."
        if left <= 0:
            return f"{said} No attempts are left; the episode is over."
        plural = "s" * (left != 1)
        return (
            f"{said} You have {left} attempt{plural} left. Think again and reply with your "
            "answer in <answer></answer> tags."
        )

    def _info(
        self, status: str, value: float, error: str | None, note: str | None
    ) -> dict[str, Any]:
        info: dict[str, Any] = {
            "status": status,
            "step": self._steps,
            **self._where,
            "score": value,
            "attempt": self._attempt,
            "attempts_left": max(0, self.config.attempts - self._attempt),
            "metrics": {
                "success": 1.0 if self._solved else 0.0,
                "score": value,
                "best_score": self._best,
                "answered": 0.0 if status in ("no_answer", "tool_call") else 1.0,
            },
        }
        if self.python is not None:
            info["tool_calls"] = self.python.made
            info["tool_calls_left"] = self.python.left
            info["metrics"]["tool_calls"] = float(self.python.made)
        if note is not None:
            info["note"] = note
        if error is not None:
            info["score_error"] = error
        return info

    def tools(self) -> Any:
        """`python` when the config asks for it (`tools: ["python"]`), else none."""
        return self.python.tools if self.python is not None else []

    async def close(self) -> None:
        """End the episode's sandbox, if it offers `python` (the datasets are shared); safe
        any number of times."""
        if self.python is not None:
            await self.python.close()

    @property
    def done(self) -> bool:
        return self._done

    def max_turns_hint(self) -> int:
        """`attempts` (+ `max_tool_calls` with tools): the most replies an episode takes
        (`swift-gym eval`'s default limit)."""
        if self.python is not None:
            return self.config.attempts + self.config.max_tool_calls
        return self.config.attempts

    def stored_answer(self) -> str | None:
        """The current item's stored answer (None for verifier-scored items)."""
        if self._entry is None:
            raise RuntimeError("no episode yet: call reset() first")
        answer = self._entry.get("answer")
        return None if answer is None else str(answer)

    def oracle_reply(self) -> str | dict[str, Any]:
        """The item's stored answer in `<answer>` tags; the five verifier-scored tasks (and
        composite items drawn from them) store none, and raise NotImplementedError.

        With `python`, the oracle plays through the tool: it calls it with code that prints the
        stored answer, and once the newest call printed it, answers with what was printed (with
        no calls left, with the newest output, whatever it is)."""
        answer = self.stored_answer()
        if answer is None:
            raise NotImplementedError(
                f"reasoning-gym's {self.task} stores no answer for this item (a verifier scores "
                "any valid one), so there is no oracle"
            )
        if self._done:
            raise RuntimeError("the episode is over: call reset() before asking for an answer")
        if self.python is None:
            return f"<answer>{answer}</answer>"
        printed = self.python.printed
        if printed == answer or self.python.left <= 0:
            return f"<answer>{printed or ''}</answer>"
        return self.python.oracle_call(answer)


class VerifierScoredEnv(ReasoningGymEnv):
    """A task whose items store no answer (boxnet, graph_color, propositional_logic,
    rubiks_cube, rush_hour): scored by reasoning-gym's verifier, no oracle.

    `oracle_reply` is `Env`'s own again, so `swift-gym info` says "oracle: no" and `swift-gym
    eval --policy oracle` refuses before playing, as for any env without one.
    """

    oracle_reply = Env.oracle_reply


def env_class(task: str, name: str) -> type[ReasoningGymEnv]:
    """The env class of `task`, named `name`, with its derived config model."""
    from .derive import config_model

    base = VerifierScoredEnv if task in VERIFIER_SCORED else ReasoningGymEnv
    namespace = {
        "task": task,
        "config_model": config_model(task),
        "__module__": "swift_gym_reasoning_gym.envs",
        "__qualname__": name,
        "__doc__": f"reasoning-gym's {task} task as a swift-gym env ({env_name(task)}).",
    }
    return type(name, (base,), namespace)
