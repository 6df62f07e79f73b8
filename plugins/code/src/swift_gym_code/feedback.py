"""What the model reads after an answer: made only from the answer's own errors and the
prompt's examples, never from the hidden tests (their assertions stay in `info`, for a
reviewer)."""

from __future__ import annotations

from swift_gym.sandbox import SandboxLimits

from .grading import Verdict, bounded

MAX_FEEDBACK_CHARS = 4000


def feedback_text(
    verdict: Verdict,
    examples: Verdict | None,
    left: int,
    feedback: str,
    limits: SandboxLimits,
) -> str:
    """The observation after grading `verdict` (the hidden tests' run); `examples` is the
    examples' run, made only with feedback on a failing answer."""
    if verdict.passed:
        return "Accepted: your function passes every test. The episode is over."
    if verdict.stage == "no_code":
        said = "Your reply holds no code."
    elif verdict.stage == "too_long":
        said = f"Not run: {verdict.error}."
    else:
        said = "Not accepted: your function does not pass every hidden test."
    if feedback == "examples" and examples is not None:
        said += "\n\n" + _examples_text(examples, limits)
    if left <= 0:
        return f"{said}\n\nNo answers are left; the episode is over."[-MAX_FEEDBACK_CHARS:]
    plural = "s" * (left != 1)
    return (
        f"{said[:MAX_FEEDBACK_CHARS]}\n\nYou have {left} answer{plural} left. Reply with the "
        "whole corrected function in a ```python block."
    )


def _examples_text(examples: Verdict, limits: SandboxLimits) -> str:
    stage = examples.stage
    if stage == "syntax":
        return f"Your code does not compile:\n{_tail(examples.error)}"
    if stage == "load":
        return f"Your code raised an error when it was loaded:\n{_tail(examples.error)}"
    if stage in ("missing", "crashed"):
        return f"On the prompt's examples: {examples.error}."
    if stage == "limit":
        return _limit_text(examples.limit, limits)
    lines = []
    for result in examples.examples:
        call, expected = result["call"], result["expected"]
        if result.get("passed"):
            lines.append(f"- {call} returned {expected}, as expected.")
        elif "error" in result:
            lines.append(f"- {call} should return {expected}, but: {result['error']}")
        else:
            lines.append(f"- {call} should return {expected}, but returned {result.get('got')}.")
    if not lines:
        return "The prompt shows no examples to check your function against."
    head = "How your function did on the examples in the prompt:"
    text = head + "\n" + "\n".join(lines)
    if examples.limit:
        text += "\n" + _limit_text(examples.limit, limits)
    elif all(result.get("passed") for result in examples.examples):
        text += (
            "\nIt returns what every example expects, but other cases fail: think about the "
            "cases the examples do not show."
        )
    return text


def _limit_text(limit: str, limits: SandboxLimits) -> str:
    if limit == "wall time":
        return f"The run was stopped: it did not finish within {limits.wall_seconds:g} seconds."
    return f"The run was stopped by the sandbox's {limit} limit."


def _tail(text: str) -> str:
    return bounded(text)
