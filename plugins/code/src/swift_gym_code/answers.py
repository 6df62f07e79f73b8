"""The code in a model's reply, and the program it becomes with the problem's prompt.

Models answer in many shapes: a ```python fenced block after some prose, several blocks (the
last is the answer, as in a chat where the model corrects itself), the bare function, or only
the body that completes the prompt (HumanEval's own completion format). All are taken: the last
fenced block whose language is Python or unnamed, else the whole reply. Only text is handled
here; nothing of it is parsed or run in this process.
"""

from __future__ import annotations

import re

MAX_CODE_CHARS = 50_000
"""Answers longer than this are not run (a HumanEval solution is a few hundred characters)."""

_FENCE = re.compile(
    r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+.#-]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
_PYTHON = {"", "python", "python3", "py", "py3"}


def extract_code(reply: str) -> str:
    """The code of `reply`: its last fenced block marked Python (or unmarked), else the whole
    reply; "" when there is none."""
    blocks = [m.group(3) for m in _FENCE.finditer(reply) if m.group(2).lower() in _PYTHON]
    if blocks:
        return blocks[-1].strip("\n")
    if reply.count("```") % 2:  # an unclosed fence (a reply cut at its token limit): its rest
        rest = reply.rpartition("```")[2]
        first, _, body = rest.partition("\n")
        if first.strip().lower() in _PYTHON:
            return body.strip("\n")
    return reply.strip("\n") if reply.strip() else ""


def defines(code: str, name: str) -> bool:
    """Whether `code` has a top-level `def name(` (the whole function, not only its body)."""
    return re.search(rf"^(async[ \t]+)?def[ \t]+{re.escape(name)}[ \t]*\(", code, re.M) is not None


def program(prompt: str, code: str, entry_point: str) -> str:
    """The module the answer's tests run against: the prompt (its imports and helper functions)
    followed by the answer. An answer that defines the function replaces the prompt's stub; one
    that does not is the body that completes the prompt (HumanEval's completion format)."""
    if defines(code, entry_point):
        return f"{prompt}\n\n{code}\n"
    return f"{prompt}{code}\n"


def fenced(code: str) -> str:
    """`code` as a reply: one ```python block."""
    return f"```python\n{code.strip(chr(10))}\n```"
