"""`code.repair`: a bug in a real open-source project, repaired with shell and file tools.

An episode is one shipped task (`swift_gym_code.repair.tasks`): the project's pinned sdist with
a bug planted by an AST mutation, which some of the project's own tests prove (FAIL_TO_PASS;
the rest, PASS_TO_PASS, pass with or without it). The model reads an issue-style statement
written from the failing tests' output (what fails and how, never where) and works in a
sandboxed workspace holding the project, with `bash`, `read_file`, `edit_file`, `write_file`
and `submit`; pytest is there. The episode ends at `submit` or after `max_turns` replies; then
the package's source files the model left are graded over the pristine project in a fresh
sandbox (`repair_grading`): reward 1.0 when every FAIL_TO_PASS and PASS_TO_PASS test passes
(with `reward: fraction`, the share of FAIL_TO_PASS that pass, unless a PASS_TO_PASS
test broke). The sdists are fetched with pip into
the operator's cache (`SWIFT_GYM_CODE_CACHE`) on first use, hash-checked; `swift-gym-code
prefetch` fetches them ahead. Limits are the operator's (`SWIFT_GYM_SANDBOX_LIMITS`).

The workspace lives on the process's background loop (`swift_gym.placement.background`), as
MCP sessions do: its pipes belong to the loop that started it, and ms-swift calls `reset` and
`step` on different loops (colocate GRPO), so every workspace call hops there.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator

from swift_gym import Env, EnvConfig, StepResult, ToolResult, tool_calls
from swift_gym.placement import background

from .repair.projects import Project
from .repair.tasks import RepairTask, load_tasks

MAX_TURNS_LIMIT = 200
DEFAULT_MAX_TURNS = 30
DIFF_CHARS = 8000
"""The final diff an info keeps (the rest is cut, and says so)."""
TOOL_NAMES = ("bash", "read_file", "edit_file", "write_file", "submit")
SYSTEM_PROMPT = (
    "You are a software engineer fixing a bug in a Python project. The project is checked out "
    "in /work, your working directory. Use the tools to look around, run the tests (python -m "
    "pytest), and edit the source. Fix the bug in the package's source, not in the tests. "
    "When the fix is done, call submit."
)
NO_CALL = (
    "Reply with a tool call: bash, read_file, edit_file or write_file to work on the project, "
    "submit when the bug is fixed."
)
OVER = "The episode is over; nothing more is done. Start a new episode."


@lru_cache(maxsize=1)
def tasks() -> tuple[RepairTask, ...]:
    """The shipped tasks, read once per process."""
    return tuple(load_tasks())


@lru_cache(maxsize=1)
def task_index() -> dict[str, int]:
    return {task.id: index for index, task in enumerate(tasks())}


class RepairConfig(EnvConfig):
    """Config of `RepairEnv`: which task, how many replies, how the reward counts."""

    task_id: str | None = Field(
        None,
        max_length=200,
        description="The task's id (see `swift-gym dataset code.repair`). None: the task of "
        "the seed (seed % the number of tasks), or a random one without a seed.",
    )
    max_turns: int = Field(
        DEFAULT_MAX_TURNS,
        ge=1,
        le=MAX_TURNS_LIMIT,
        description="Replies per episode; after the last, the tree is graded as if submitted.",
    )
    reward: Literal["all", "fraction"] = Field(
        "all",
        description="all: 1.0 when every FAIL_TO_PASS and PASS_TO_PASS test passes, else 0.0. "
        "fraction (partial credit): the share of FAIL_TO_PASS tests that pass, 0.0 when any "
        "PASS_TO_PASS test broke.",
    )
    tools: list[Literal["bash", "read_file", "edit_file", "write_file", "submit"]] = Field(
        default_factory=lambda: list(TOOL_NAMES),
        min_length=1,
        max_length=len(TOOL_NAMES),
        description="The tools offered (a subset, e.g. for a model with a short context).",
    )

    @field_validator("task_id")
    @classmethod
    def _known(cls, value: str | None) -> str | None:
        if value is not None and value not in task_index():
            raise ValueError(
                f"{value[:80]!r} is no shipped code.repair task (there are {len(tasks())}; "
                "`swift-gym dataset code.repair` lists them)"
            )
        return value


class RepairEnv(Env):
    """One repository-repair task in a sandboxed workspace (see the module docstring)."""

    config_model: ClassVar[type[EnvConfig]] = RepairConfig
    config: RepairConfig
    tool_use: ClassVar[str | None] = "always"

    def __init__(self, env_config: Mapping[str, Any] | EnvConfig | None = None):
        super().__init__(env_config)
        from swift_gym.sandbox import operator_limits

        self.limits = operator_limits()  # the operator's, never a row's
        self._rng: random.Random | None = None
        self._task: RepairTask | None = None
        self._project: Project | None = None
        self._workspace: Any = None
        self._tools: Any = None
        self._pristine: Any = None
        self._python_paths: tuple[Any, ...] = ()
        self._oracle: list[dict[str, Any]] = []
        self._turn = 0
        self._done = False

    def _pick(self) -> RepairTask:
        config, all_tasks = self.config, tasks()
        if config.task_id is not None:
            return all_tasks[task_index()[config.task_id]]
        if config.seed is not None:
            return all_tasks[config.seed % len(all_tasks)]
        if self._rng is None:  # seedless: from os.urandom, never the global random
            self._rng = random.Random()
        return all_tasks[self._rng.randrange(len(all_tasks))]

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        """Plant the task's bug in a fresh workspace and show its statement."""
        from swift_gym.sandbox import Workspace, WorkspaceTools

        from .pytest_mount import pytest_path
        from .repair.projects import TEST_ENV
        from .repair_trees import buggy_tree, pristine_tree, project_of

        await self._end_workspace()
        task = self._task = self._pick()
        self._project = project_of(task)
        self._turn, self._done, self._oracle = 0, False, []
        # fetching, unpacking and copying are disk and network work: off the event loop
        buggy, pristine, pytest_dir = await asyncio.to_thread(
            lambda: (buggy_tree(task), pristine_tree(task), pytest_path())
        )
        self._pristine, self._python_paths = pristine, (pytest_dir,)
        self._workspace = Workspace(
            self.limits, source=buggy, python_paths=self._python_paths, environment=TEST_ENV
        )
        self._tools = WorkspaceTools(self._workspace, names=self.config.tools)
        await background.run(self._workspace.start())
        info = {
            "status": "reset",
            "task_id": task.id,
            "project": f"{task.project} {task.version}",
            "max_turns": self.config.max_turns,
            "fail_to_pass": len(task.FAIL_TO_PASS),
            "pass_to_pass": len(task.PASS_TO_PASS),
        }
        return _statement(task, self.config.tools), info, SYSTEM_PROMPT

    def tools(self) -> Any:
        return self._tools.tools if self._tools is not None else []

    async def step(self, messages: list[dict[str, Any]]) -> StepResult:
        """Answer the reply's calls in the workspace; grade once submitted or out of turns."""
        calls = tool_calls(messages)
        if self._task is None or self._tools is None or self._done:
            results = [ToolResult.error(call, OVER) for call in calls]
            return StepResult(OVER, 0.0, True, {"status": "episode_over"}, results)
        self._turn += 1
        results = []
        for call in calls:
            if self._tools.submitted:
                results.append(ToolResult.error(call, "already submitted: this call was not run"))
            else:
                results.append(await background.run(self._tools.call(call)))
        submitted = bool(self._tools.submitted)
        info: dict[str, Any] = {
            "status": "playing",
            "task_id": self._task.id,
            "turn": self._turn,
            "commands": self._workspace.commands,
        }
        if not (submitted or self._turn >= self.config.max_turns):
            return StepResult("" if calls else NO_CALL, 0.0, False, info, results)
        self._done = True
        reward, graded = await self._grade(submitted)
        info.update(graded)
        return StepResult("" if calls else NO_CALL, reward, True, info, results)

    async def _grade(self, submitted: bool) -> tuple[float, dict[str, Any]]:
        from .repair_grading import grade

        task, project = self._task, self._project
        assert task is not None and project is not None
        result = await background.run(
            grade(self._workspace, task, project, self._pristine, self._python_paths, self.limits)
        )
        resolved = result.resolved(task)
        reward = result.fraction(task) if self.config.reward == "fraction" else float(resolved)
        diff = await self._diff()
        await self._end_workspace()
        info = {
            "status": "resolved" if resolved else "unresolved",
            "ended_by": "submit" if submitted else "max_turns",
            **result.info(task),
            "diff": diff,
            "metrics": {
                "success": float(resolved),
                "fraction": result.fraction(task),
                "submitted": float(submitted),
            },
        }
        return reward, info

    async def _diff(self) -> str:
        from swift_gym.sandbox import WorkspaceError

        try:
            return str(await background.run(self._workspace.diff(max_chars=DIFF_CHARS)))
        except WorkspaceError as error:
            return f"(no diff: {error})"

    def max_turns_hint(self) -> int:
        return self.config.max_turns

    def oracle_reply(self) -> dict[str, Any]:
        """The task's fix through the tools: the reverse edit, then `submit`."""
        if self._task is None:
            raise RuntimeError("no episode yet: call reset() first")
        if not self._oracle:
            from .repair_oracle import oracle_calls

            path = self._pristine / self._task.changed_file
            with open(path, encoding="utf-8", newline="") as file:
                self._oracle = oracle_calls(self._task, file.read())
        return self._oracle[min(self._turn, len(self._oracle) - 1)]

    async def _end_workspace(self) -> None:
        tools, self._tools = self._tools, None
        self._workspace = None
        if tools is not None:
            await background.run(tools.close())

    async def close(self) -> None:
        await self._end_workspace()

    @property
    def done(self) -> bool:
        return self._done


def _statement(task: RepairTask, offered: list[str]) -> str:
    how = ", ".join(offered)
    return (
        f"The repository of {task.project} {task.version} is in /work. An issue was "
        f"reported:\n\n{task.problem_statement.strip()}\n\nFix the bug in the package's source "
        f"so that the project's tests pass (do not change the tests). Tools: {how}."
    )
