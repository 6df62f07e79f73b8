"""`swift-gym new`: bake a new env package from the template, wherever swift-gym is installed.

The template is the repository's `plugins/template/`, shipped inside the core as
`swift_gym/template`; an editable install reads it from the checkout. Baking needs cookiecutter,
an optional dependency (the `new` extra: `pip install "./core[new]"` in a clone).
"""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
from pathlib import Path

import click

from ..install_hints import extra_hint
from .console import stdout
from .errors import CommandError


def template_dir() -> Path:
    """Where the cookiecutter template is: in the installed package, else in the checkout."""
    import swift_gym

    package = Path(swift_gym.__file__).resolve().parent
    for candidate in (package / "template", package.parents[2] / "plugins" / "template"):
        if (candidate / "cookiecutter.json").is_file():
            return candidate
    raise CommandError(
        "the env template is not installed with this swift-gym; bake it from a clone of the "
        "repository: cookiecutter plugins/template"
    )


@click.command()
@click.argument("env_name")
@click.option(
    "-o",
    "--output-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Where to put the package directory swift-gym-ENV_NAME.",
)
@click.option("--description", help="One-line description for pyproject.toml and the README.")
@click.option("--author", help="Author for pyproject.toml.")
def new(env_name: str, output_dir: Path, description: str | None, author: str | None) -> None:
    """Bake a new env package ENV_NAME (a lowercase identifier, e.g. maze_walker).

    It installs, registers ENV_NAME in the swift_gym.envs group and passes its own tests:
    pip install -e './swift-gym-ENV_NAME[test]' && python -m pytest swift-gym-ENV_NAME
    """
    try:
        from cookiecutter.exceptions import (
            CookiecutterException,
            FailedHookException,
            OutputDirExistsException,
        )
        from cookiecutter.main import cookiecutter
    except ImportError:
        raise CommandError(f"swift-gym new needs cookiecutter: {extra_hint('new')}") from None
    context = {"env_name": env_name}
    context.update({k: v for k, v in (("description", description), ("author", author)) if v})
    # cookiecutter logs a traceback when the hook refuses a name; the hook's own message is enough
    logging.getLogger("cookiecutter").setLevel(logging.CRITICAL)
    try:
        with tempfile.TemporaryDirectory() as scratch:
            # pip byte-compiles the installed template: copy it without __pycache__ first
            template = Path(scratch) / "template"
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
            shutil.copytree(template_dir(), template, ignore=ignore)
            baked = cookiecutter(
                str(template), no_input=True, extra_context=context, output_dir=str(output_dir)
            )
    except FailedHookException:  # the hook has printed what is wrong with the input
        raise CommandError("nothing was baked: fix the input above") from None
    except OutputDirExistsException as error:
        found = re.search(r'"(.+)"', str(error))
        where = found[1] if found else str(output_dir)
        raise CommandError(
            f"{where} already exists: give -o another directory, or remove it"
        ) from None
    except CookiecutterException as error:
        raise CommandError(str(error).removeprefix("Error: ")) from None
    stdout().print(f"baked {baked}", markup=False)
    stdout().print(
        f"next: pip install -e '{baked}[test]' && python -m pytest {baked}", markup=False
    )
