"""Refuses inputs that would bake a broken package, with a message that says what to type.

`env_name` becomes the env's registered name, the import package `swift_gym_<env_name>` and the
distribution `swift-gym-<env-name>`, so it must be a lowercase Python identifier, and neither
that distribution nor that env name may belong to another package: installing the bake would
silently replace swift-gym's own FrozenLake (same distribution name and version), or two
packages would register one env name. `description` and `author` go into pyproject.toml
strings, so they must be one line.
"""

import keyword
import re
import sys
import unicodedata
from importlib import metadata
from urllib.parse import unquote

# Percent-encoded by Jinja, so any input (quotes, backslashes) still makes valid Python here.
NAME = unquote("{{ cookiecutter.env_name | urlencode }}")
TEXTS = {
    "description": unquote("{{ cookiecutter.description | urlencode }}"),
    "author": unquote("{{ cookiecutter.author | urlencode }}"),
}
MAX_NAME = 64
SHIPPED = (
    "swift-gym-code",
    "swift-gym-frozen-lake",
    "swift-gym-gymnasium",
    "swift-gym-reasoning-gym",
    "swift-gym-textarena",
    "swift-gym-verifiers",
)
"""The env packages of the swift-gym repository (its plugins/ directory), installed or not."""


def normalized(distribution):
    """A distribution name as pip compares them (PEP 503): `Frozen__Lake` is `frozen-lake`."""
    return re.sub(r"[-_.]+", "-", distribution).lower()


def suggestion(name):
    """A valid name close to `name`: lowercase, '_' for anything else, a letter first."""
    text = re.sub(r"[^a-z0-9]+", "_", name.strip().lower()).strip("_")
    text = re.sub(r"^[0-9_]+", "", text)[:MAX_NAME].rstrip("_")
    if keyword.iskeyword(text):
        text += "_env"
    return text or "my_env"


def name_problem(name):
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        return (
            "it must be a lowercase Python identifier: a letter a-z first, then lowercase "
            "letters, digits or '_'"
        )
    if keyword.iskeyword(name):
        return "it is a Python keyword, so it cannot name a package"
    if len(name) > MAX_NAME:
        return f"it is {len(name)} characters long; at most {MAX_NAME} are allowed"
    return None


def owner_problem(name):
    """Why `name` is taken by a shipped or installed distribution, or None."""
    distribution = normalized(f"swift-gym-{name}")
    shipped = {normalized(shipped): shipped for shipped in SHIPPED}
    if distribution in shipped:
        return f"the distribution {shipped[distribution]} ships with swift-gym"
    for found in metadata.distributions():
        owner = found.metadata["Name"] or ""
        if normalized(owner) == distribution:
            return f"the distribution {owner} is installed (pip uninstall {owner} frees it)"
        for entry in found.entry_points:
            if entry.group == "swift_gym.envs" and entry.name == name:
                return f"the env {name} is registered by {owner}"
    return None


def text_problem(text):
    if any(unicodedata.category(char) == "Cc" for char in text):
        return "it must be one line of text, without newlines, tabs or other control characters"
    return None


def main():
    problems = []
    problem = name_problem(NAME)
    if problem:
        problems.append(
            f"env_name {NAME!r} is not a valid env name: {problem}.\n"
            f"  It names the env, the package swift_gym_<env_name> and the distribution "
            f"swift-gym-<env-name>.\n  Try: env_name={suggestion(NAME)}"
        )
    else:
        problem = owner_problem(NAME)
        if problem:
            problems.append(
                f"env_name {NAME!r} is taken: {problem}; installing the package would replace "
                f"or shadow it.\n  Try: env_name={suggestion('my_' + NAME)}"
            )
    for field, text in TEXTS.items():
        problem = text_problem(text)
        if problem:
            problems.append(f"{field} {text!r} is not valid: {problem}.")
    if problems:
        print("\n".join(f"error: {problem}" for problem in problems), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
