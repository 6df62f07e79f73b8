"""Errors a user can act on.

Every error swift-gym raises on purpose derives from `SwiftGymError` and from `ValueError` or
`LookupError`, so callers that already catch those keep working. Messages are short, name the
thing to fix and never embed a traceback or a pydantic error dump.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

_MAX_VALUE_CHARS = 80


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """The closest of `choices` to `word`, or None when nothing is close."""
    matches = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return matches[0] if matches else None


def short_repr(value: Any, limit: int = _MAX_VALUE_CHARS) -> str:
    """`repr(value)` cut to `limit` characters, so a huge value never floods a message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class SwiftGymError(Exception):
    """Base of every error swift-gym raises on purpose."""


@dataclass(frozen=True)
class ConfigProblem:
    """One thing wrong with an env_config: which field, why, and what was given."""

    field: str
    reason: str
    value: Any = None
    has_value: bool = True
    suggestion: str | None = None
    hint: str | None = None

    def __str__(self) -> str:
        text = f"{self.field}: {self.reason}"
        if self.has_value:
            text += f" (got {short_repr(self.value)})"
        if self.suggestion:
            text += f"; did you mean {self.suggestion!r}?"
        if self.hint:
            text += f"; {self.hint}"
        return text


class InvalidConfigError(SwiftGymError, ValueError):
    """An env_config does not fit its env's schema. Lists every problem at once."""

    def __init__(self, env_name: str, problems: Sequence[ConfigProblem]):
        super().__init__(env_name, tuple(problems))
        self.env_name = env_name
        self.problems = tuple(problems)

    def __str__(self) -> str:
        count = len(self.problems)
        head = (
            f"invalid env_config for env {self.env_name!r} ({count} problem{'s' * (count != 1)}):"
        )
        return "\n".join([head, *(f"  - {problem}" for problem in self.problems)])


class UnknownEnvError(SwiftGymError, LookupError):
    """A name that no installed env package registers."""

    def __init__(self, name: str | None, installed: Sequence[str]):
        from .env_names import as_env_names

        self.name = name
        self.installed = as_env_names(installed)
        """Every name that would work (an `EnvNames`: bounded did-you-mean and listing)."""
        super().__init__(name, self.installed)
        self._suggestion: tuple[str | None] | None = None

    @property
    def suggestion(self) -> str | None:
        """The installed name closest to the one given (or to its bare part), if any is close."""
        if self._suggestion is None:
            found = None
            if self.name is not None:
                bare = self.name.rpartition(":")[2]
                found = next(
                    iter(self.installed.closest(self.name) or self.installed.closest(bare)), None
                )
            self._suggestion = (found,)
        return self._suggestion[0]

    def __str__(self) -> str:
        if self.name is None:
            lines = ["no env name given: set env_config['name'] or pass the env name (--gym_env)."]
        else:
            lines = [f"unknown env {short_repr(self.name)}."]
            if self.suggestion:
                lines[0] += f" Did you mean {self.suggestion!r}?"
        if self.installed:
            from .env_names import LISTED

            more = " (swift-gym list shows them all)" if len(self.installed) > LISTED else ""
            lines.append(f"Installed envs: {self.installed.listing()}{more}.")
        else:
            lines.append(
                "No env is installed: pip install an env package, e.g. swift-gym-frozen-lake."
            )
        lines.append(
            "An env package registers its envs in the 'swift_gym.envs' entry-point group; "
            "check SWIFT_GYM_LOAD_PLUGINS and SWIFT_GYM_DISABLE_PLUGINS if yours is missing."
        )
        return "\n".join(lines)


class AmbiguousEnvError(SwiftGymError, LookupError):
    """Two or more distributions register the same env name."""

    def __init__(self, name: str, distributions: Sequence[str]):
        super().__init__(name, tuple(distributions))
        self.name = name
        self.distributions = tuple(distributions)

    def __str__(self) -> str:
        picks = " or ".join(repr(f"{dist}:{self.name}") for dist in self.distributions)
        return (
            f"env name {self.name!r} is registered by {len(self.distributions)} distributions: "
            f"{', '.join(self.distributions)}. Pick one with {picks}, "
            "or uninstall the one you do not want."
        )


class EnvLoadError(SwiftGymError, LookupError):
    """A registered env could not be imported, or what it names is not an env class."""

    def __init__(
        self, name: str, distribution: str | None, version: str | None, target: str, reason: str
    ):
        super().__init__(name, distribution, version, target, reason)
        self.name = name
        self.distribution = distribution
        self.version = version
        self.target = target
        self.reason = reason

    def __str__(self) -> str:
        if self.distribution is None:
            return f"env {self.name!r} failed to load ({self.target}): {self.reason}."
        source = f"{self.distribution} {self.version or ''}".strip()
        return (
            f"env {self.name!r} from {source} failed to load ({self.target}): {self.reason}. "
            f"Fix or reinstall {self.distribution}, or skip it with "
            f"SWIFT_GYM_DISABLE_PLUGINS={self.distribution}."
        )
