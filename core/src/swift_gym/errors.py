"""Errors a user can act on.

Every error swift-gym raises on purpose derives from `SwiftGymError` and from `ValueError` or
`LookupError`, so callers that already catch those keep working. Messages are short, name the
thing to fix and never embed a traceback or a pydantic error dump.
"""

from __future__ import annotations

import difflib
import reprlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

_MAX_VALUE_CHARS = 80
_MAX_TEXT_CHARS = 500
MAX_PROBLEMS = 20
"""Problems of one config listed at most; the rest are counted ("and N more")."""


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """The closest of `choices` to `word`, or None when nothing is close (or `word` is too long
    to be a misspelling: comparing costs its length times each choice's)."""
    if len(word) > _MAX_VALUE_CHARS:
        return None
    matches = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return matches[0] if matches else None


def short_repr(value: Any, limit: int = _MAX_VALUE_CHARS) -> str:
    """A repr of `value` cut to `limit` characters, so a huge value never floods a message.

    Bounded work, not only output: long strings and containers are cut before they are
    rendered (reprlib), so a 50 MB string or a dict of 200,000 keys costs little and deep nesting
    never recurses far. Control characters and lone surrogates come out escaped, as repr does.
    """
    cutter = reprlib.Repr()
    cutter.maxlevel = 4
    cutter.maxdict = cutter.maxlist = cutter.maxtuple = cutter.maxset = cutter.maxfrozenset = 8
    cutter.maxstring = cutter.maxlong = cutter.maxother = max(limit, 8)
    try:
        text = cutter.repr(value)
    except Exception as error:  # a value whose __repr__ fails (or is too big) is still shown
        text = f"<{type(value).__name__}: repr failed with {type(error).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def printable(text: str, limit: int = _MAX_TEXT_CHARS) -> str:
    """`text` from data or a plugin, safe in a message: cut to `limit` characters, with control
    characters, escape sequences and lone surrogates shown as their escapes (`\\x1b`)."""
    cut = text[:limit]
    if not cut.isprintable():
        cut = "".join(char if char.isprintable() else repr(char)[1:-1] for char in cut)
    return cut if len(text) <= limit else cut + "..."


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
        text = f"{printable(self.field)}: {printable(self.reason)}"
        if self.has_value:
            text += f" (got {short_repr(self.value)})"
        if self.suggestion:
            text += f"; did you mean {short_repr(self.suggestion)}?"
        if self.hint:
            text += f"; {printable(self.hint)}"
        return text


class InvalidConfigError(SwiftGymError, ValueError):
    """An env_config does not fit its env's schema. Lists every problem at once, up to
    `MAX_PROBLEMS`; `omitted` counts the problems beyond those (not listed, not even built)."""

    def __init__(self, env_name: str, problems: Sequence[ConfigProblem], omitted: int = 0):
        problems = tuple(problems)
        omitted += max(0, len(problems) - MAX_PROBLEMS)
        super().__init__(env_name, problems[:MAX_PROBLEMS], omitted)
        self.env_name = env_name
        self.problems = problems[:MAX_PROBLEMS]
        self.omitted = omitted

    def __str__(self) -> str:
        count = len(self.problems) + self.omitted
        head = (
            f"invalid env_config for env {short_repr(self.env_name)} "
            f"({count} problem{'s' * (count != 1)}):"
        )
        lines = [head, *(f"  - {problem}" for problem in self.problems)]
        if self.omitted:
            lines.append(f"  - and {self.omitted} more")
        return "\n".join(lines)


class UnknownEnvError(SwiftGymError, LookupError):
    """A name that no installed env package registers."""

    def __init__(self, name: str | None, installed: Sequence[str], explicit_null: bool = False):
        from .env_names import as_env_names

        self.name = name
        self.explicit_null = explicit_null
        """The row said `"name": null`, which ms-swift takes as the name (no --gym_env)."""
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
        if self.name is None and self.explicit_null:
            lines = [
                "env_config['name'] is null, and ms-swift takes an explicit null as the env name "
                "(it does not fall back to --gym_env): drop the key or give a name."
            ]
        elif self.name is None:
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
            from .install_hints import ENV_PACKAGE_HINT

            lines.append(f"No env is installed: {ENV_PACKAGE_HINT}.")
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


class OutputError(SwiftGymError, OSError):
    """Output cannot be written where it was asked for (a missing directory, no permission)."""


class EnvUnavailableError(SwiftGymError, ConnectionError):
    """The server an env plays on does not answer at all (nothing accepts a connection): no
    episode can be played there. `swift-gym eval` then starts no new episode, as when the model
    endpoint is down. An env may raise it for its own services too."""


class InvalidToolsError(SwiftGymError, ValueError):
    """The tools an env offers are not valid OpenAI function tools (a bad name, a duplicate, a
    parameters schema that is not JSON Schema or uses what the checker does not support). Lists
    every problem at once, like `InvalidConfigError`: it is the env author's to fix."""

    def __init__(self, label: str, problems: Sequence[str]):
        problems = tuple(problems)
        super().__init__(label, problems[:MAX_PROBLEMS])
        self.label = label
        self.problems = problems[:MAX_PROBLEMS]
        self.omitted = len(problems) - len(self.problems)

    def __str__(self) -> str:
        count = len(self.problems) + self.omitted
        lines = [
            f"invalid tools offered by {short_repr(self.label)} ({count} problem"
            f"{'s' * (count != 1)}):"
        ]
        lines.extend(f"  - {printable(problem)}" for problem in self.problems)
        if self.omitted:
            lines.append(f"  - and {self.omitted} more")
        return "\n".join(lines)


class SchedulerError(SwiftGymError, RuntimeError):
    """The env cannot be played by the scheduler that drives it (a tool env under ms-swift's
    text-only `gym_scheduler`); the message names the scheduler to use."""


class InvalidStepError(SwiftGymError, ValueError):
    """What an env's `step` returned is neither `(observation, reward, done, info)` nor a valid
    `StepResult`, or its tool results do not answer the calls one to one."""


class SandboxUnavailableError(SwiftGymError, RuntimeError):
    """The sandbox cannot isolate code here: bubblewrap is missing, or the kernel refuses it the
    namespaces it needs. The message says how to install or enable it; nothing runs."""
