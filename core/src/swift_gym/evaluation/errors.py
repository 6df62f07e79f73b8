"""What the evaluation library raises when it cannot run as asked.

Every one is a `SwiftGymError`. The command turns them into exit codes (`cli.errors`): the
caller's mistakes (a bad URL, a dataset that is no file) are usage errors, 2; what it found
(bad dataset rows, an endpoint that is down) is 1. An episode that fails is no exception at
all: it is recorded with status "error" and the run goes on.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..errors import SwiftGymError, printable

SHOWN_ROWS = 20
"""Bad rows whose problems a `BadRowsError` holds (and its message lists); the rest are counted."""


class EvaluationError(SwiftGymError, ValueError):
    """The evaluation cannot start as asked: fix the arguments (the message says which)."""


class PolicyError(SwiftGymError, RuntimeError):
    """A policy could not reply in this episode: that episode ends with status "error".

    Raised by policies, caught by the episode loop; a callable policy may raise it too, to fail
    an episode with its own message.
    """


class EndpointSetupError(EvaluationError):
    """An OpenAI-compatible endpoint cannot be used as given: a URL that is not http(s), a path
    or key the server refuses, or a server with several models and none chosen."""


class EndpointError(SwiftGymError, ConnectionError):
    """The endpoint does not answer usably (nothing listens, it errors): no fault of the
    arguments, and nothing was played."""


class DatasetError(EvaluationError):
    """The dataset cannot be played: not a regular file, or no rows."""


class BadRowsError(DatasetError):
    """Rows of the dataset do not check (see `problems`); nothing was played."""

    def __init__(self, dataset: Path | str, problems: Sequence[tuple[int, str]], count: int):
        self.dataset = str(dataset)
        self.problems = list(problems)
        """(line number, problem) of the first `SHOWN_ROWS` bad rows."""
        self.count = count
        """Bad rows in all."""
        super().__init__(self.dataset, self.problems, count)

    def __str__(self) -> str:
        where = printable(self.dataset)
        lines = [f"{self.summary()}:"]
        lines += [f"  {where}, line {line}: {problem}" for line, problem in self.problems]
        return "\n".join(lines)

    def summary(self) -> str:
        """One line: how many rows are bad, and how to see them all."""
        where = printable(self.dataset)
        return (
            f"{self.count} bad row{'s' * (self.count != 1)} in {where}; nothing was played. "
            f"See them all with: swift-gym validate {where}"
        )


class TrajectoryFileError(EvaluationError):
    """A trajectory file holds no episode record at all."""
