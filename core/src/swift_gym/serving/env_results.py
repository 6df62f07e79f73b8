"""What an env's reset, step, `tools()` and `rewritten_context()` returned, checked before it
goes into a frame: the env's bug (a wrong shape, results that do not answer the calls, a
reward that is not finite) becomes an `EXECUTION_ERROR` naming the env, never a frame a client
cannot read.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..env import Env
from ..errors import InvalidStepError, short_repr
from ..steps import StepResult, as_step_result
from ..tools import offered_tools
from .protocol import EXECUTION_ERROR, ProtocolError

if TYPE_CHECKING:
    from ..env import Message
    from ..tools import ToolSet


def reset_result(result: Any, name: str) -> tuple[str, dict[str, Any], str]:
    if not (isinstance(result, tuple) and len(result) == 3):
        raise bad_result(name, "reset()", "(observation, info, system_prompt)", result)
    observation, info, system_prompt = result
    if not isinstance(observation, str) or not isinstance(info, dict):
        raise bad_result(name, "reset()", "(str, dict, str)", result)
    if system_prompt is None:
        system_prompt = ""
    if not isinstance(system_prompt, str):
        raise bad_result(name, "reset()", "(str, dict, str)", result)
    return observation, info, system_prompt


def step_result(result: Any, name: str) -> tuple[str, float, bool, dict[str, Any]]:
    if not (isinstance(result, tuple) and len(result) == 4):
        raise bad_result(name, "step()", "(observation, reward, done, info)", result)
    observation, reward, done, info = result
    if (
        not isinstance(observation, str)
        or not isinstance(info, dict)
        or isinstance(reward, bool)
        or not isinstance(reward, (int, float))
        or not math.isfinite(reward)
    ):
        raise bad_result(name, "step()", "(str, finite float, bool, dict)", result)
    return observation, float(reward), bool(done), info


def tools_of(env: Any) -> ToolSet | None:
    """The tools `env` offers now, checked (`offered_tools`); None for an env without `tools`."""
    return offered_tools(env) if callable(getattr(env, "tools", None)) else None


def replaces_chat(env: Any) -> bool:
    """Whether `env` may replace the chat (it overrides `Env.rewritten_context`)."""
    method = getattr(type(env), "rewritten_context", None)
    return method is not None and method is not Env.rewritten_context


def context_of(env: Any) -> list[Message] | None:
    """The chat `env` replaced (`Env.rewritten_context`), copied; raises InvalidStepError when
    it is not a list of messages."""
    context = env.rewritten_context()
    if context is None:
        return None
    if not isinstance(context, list) or not all(isinstance(m, dict) for m in context):
        raise InvalidStepError(
            f"rewritten_context() must return a list of messages or None, got {short_repr(context)}"
        )
    return [dict(message) for message in context]


def tool_step_result(
    value: Any, calls: Any, name: str
) -> tuple[str, float, bool, dict[str, Any], StepResult]:
    """A tool turn's step result, checked: a StepResult (or the 4-tuple) whose results answer
    `calls` one to one (None: no check, the env offers no tools) and whose reward is finite."""
    try:
        result = as_step_result(value, calls)
    except InvalidStepError as error:
        raise ProtocolError(
            EXECUTION_ERROR, f"env {short_repr(name)}: {error}; send a reset to start again"
        ) from None
    if not math.isfinite(result.reward):
        raise bad_result(name, "step()", "a finite reward", value)
    return result.observation, result.reward, result.done, result.info, result


def bad_result(name: str, call: str, wanted: str, result: Any) -> ProtocolError:
    return ProtocolError(
        EXECUTION_ERROR,
        f"env {short_repr(name)}: {call} returned {short_repr(result)}, not {wanted}; "
        "send a reset to start again",
    )
