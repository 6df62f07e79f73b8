"""Refuses inputs that would bake a broken package, with a message that says what to type.

`env_name` becomes the env's registered name, the import package `swift_gym_<env_name>` and the
distribution `swift-gym-<env-name>`, so it must be a lowercase Python identifier. `description`
and `author` go into pyproject.toml strings, so they must be one line.
"""

import keyword
import re
import sys
import unicodedata
from urllib.parse import unquote

# Percent-encoded by Jinja, so any input (quotes, backslashes) still makes valid Python here.
NAME = unquote("{{ cookiecutter.env_name | urlencode }}")
TEXTS = {
    "description": unquote("{{ cookiecutter.description | urlencode }}"),
    "author": unquote("{{ cookiecutter.author | urlencode }}"),
}
MAX_NAME = 64


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
    for field, text in TEXTS.items():
        problem = text_problem(text)
        if problem:
            problems.append(f"{field} {text!r} is not valid: {problem}.")
    if problems:
        print("\n".join(f"error: {problem}" for problem in problems), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
