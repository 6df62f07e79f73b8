"""What a run or a call returned: output, value, error, and which limit ended it, if any.

All text in them comes from untrusted code: bounded here, to be escaped wherever it is shown.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunResult:
    """A one-shot run. `exit_code` is the code's (None when it was killed), `limit` names the
    limit that ended it ("" when none did), `truncated` says output was cut."""

    stdout: str
    stderr: str
    exit_code: int | None
    limit: str = ""
    truncated: bool = False

    @property
    def timed_out(self) -> bool:
        return self.limit == "wall time"


@dataclass(frozen=True)
class CallResult:
    """One call in a session: its output, `value` (the repr of a last expression, if any),
    `error` (a traceback as text), and `ended` when the call ended the session (a limit hit,
    the interpreter gone): the next call starts a fresh one, with no variables or files."""

    stdout: str = ""
    stderr: str = ""
    value: str | None = None
    error: str | None = None
    limit: str = ""
    truncated: bool = False
    ended: bool = False

    @property
    def timed_out(self) -> bool:
        return self.limit == "wall time"
