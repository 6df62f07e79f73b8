"""MkDocs hook: the parts of the site that are generated, so they cannot drift from the code.

Markers, each alone on a line of a page's markdown:

- `<!-- swift-gym:cli heading=N -->`: the `swift-gym` command's own `--help`, then each
  subcommand's, under a heading of level N each, as `swift-gym CMD --help` prints them (in code
  blocks: the help's `<placeholder>` and `[default: ...]` stay text).

- `<!-- swift-gym:configs SELECT heading=N -->`, where SELECT is `distribution=DIST` or
  `env=NAME`: a table per env of its config fields (field, type, default, bounds, description),
  read from the env's pydantic schema exactly as `swift-gym info` reads it. Fields every env of
  the selection shares are one table first; envs of a family are grouped under a heading of
  level N (reasoning-gym's category, TextArena's game) with the envs one level below.
- `<!-- swift-gym:readme PATH shift=N -->`: the markdown file at PATH (relative to mkdocs.yml,
  e.g. an env package's README) without its first-line title, its headings N levels deeper, so
  each package's README stays the one source of its text.

Files written outside docs/ that pages show (the learning curve and report `tox -e learn` writes
to benchmarks/) are added to the site as they are, not copied into docs/.

The example scripts and packages of examples/ are in the site too, under `examples/` (each
package's README a page outside the navigation, the rest as plain files). A page links one by
its path in the repository (`../examples/swift_rlhf_colocate.sh` from docs/training.md, a
folder by its README), and a README links a page by its path too (`../../docs/training.md`), so
the links also work where the markdown is read in the repository; the hook points each at the
site's copy.

Every env of the shipped distributions must land on some page: an env nobody documents (a new
one, or a marker lost in an edit) fails the build, as does a selection that matches no env
(the packages not installed: `tox -e docs` installs them all).
"""

from __future__ import annotations

import functools
import html
import os
import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

SHIPPED = (
    "swift-gym",
    "swift-gym-frozen-lake",
    "swift-gym-gymnasium",
    "swift-gym-reasoning-gym",
    "swift-gym-textarena",
)
PLUGIN_PATHS = (
    "./plugins/frozen_lake",
    "./plugins/gymnasium",
    "./plugins/reasoning_gym",
    "./plugins/textarena",
)
"""Where the shipped env packages are in a clone (not ./plugins/*: the template is no package)."""
EXTRA_FILES = {
    "learning-curve.svg": "benchmarks/learning-curve.svg",
    "learning-report.html": "benchmarks/learning-report.html",
}
EXAMPLES = "examples"
"""The folder of the repository (and of the site) that holds the example scripts and packages."""
EXAMPLE_FILES = (".sh", ".py", ".toml", ".md")
LINK = re.compile(r"\]\(([^)\s#]+)(#[^)\s]*)?\)")
MARKER = re.compile(r"^<!-- swift-gym:(cli|configs|readme) (.*?) -->$", re.M)
HELP_WIDTH = 100
_documented: set[str] = set()


@functools.cache
def _envs() -> dict[str, tuple[Any, list[Any]]]:
    """Every installed env by name: its spec and its config fields (imports every env class)."""
    import swift_gym
    from swift_gym.cli.schema_view import field_rows

    envs = {}
    for spec in swift_gym.list_envs():
        model = swift_gym.get_env_class(spec.qualified_name).config_model
        envs[spec.name] = (spec, field_rows(model.model_json_schema()))
    missing = set(SHIPPED) - {spec.distribution for spec, _ in envs.values()}
    if missing:
        raise PluginError(
            f"the docs document every shipped env, but {', '.join(sorted(missing))} is not "
            'installed: run `tox -e docs`, or in this clone pip install "./core[docs]" '
            f"{' '.join(PLUGIN_PATHS)} first"
        )
    return envs


def _family(name: str) -> str | None:
    """The heading an env is grouped under on its package's page, if its package has families."""
    if name.startswith("reasoning_gym."):
        from swift_gym_reasoning_gym.ids import TASKS

        return TASKS[name.removeprefix("reasoning_gym.")]
    if name.startswith("textarena."):
        from swift_gym_textarena.ids import TA_IDS

        return TA_IDS[name.removeprefix("textarena.")]
    return None


def _literal(text: str) -> str:
    """Text shown as typed in a table cell: no markdown, no HTML, no cell-ending `|`."""
    escaped = html.escape(text.replace("\n", " "), quote=False)
    for char in "|*_`[]\\{}":
        escaped = escaped.replace(char, f"&#{ord(char)};")
    return escaped


def _code(text: str) -> str:
    return f"<code>{_literal(text)}</code>" if text else ""


def _prose(text: str) -> str:
    """A description in a table cell: its `code spans` kept as code, everything else literal."""
    parts = re.split(r"`([^`]*)`", text)
    return "".join(_code(part) if odd else _literal(part) for odd, part in _cycle(parts))


def _cycle(parts: list[str]) -> list[tuple[int, str]]:
    return [(index % 2, part) for index, part in enumerate(parts)]


def _table(rows: list[Any]) -> list[str]:
    lines = ["| field | type | default | bounds | description |", "| --- | --- | --- | --- | --- |"]
    for row in rows:
        cells = [_code(row.name), _code(row.type), _code(row.default), _literal(row.bounds)]
        lines.append("| " + " | ".join([*cells, _prose(row.description)]) + " |")
    return lines


def _configs(selection: str, page: str) -> str:
    options = dict(part.split("=", 1) for part in selection.split())
    heading = int(options.get("heading", 2))
    envs = _envs()
    if "env" in options:
        names = [options["env"]] if options["env"] in envs else []
    else:
        names = [
            name
            for name, (spec, _) in envs.items()
            if spec.distribution == options.get("distribution")
        ]
    if not names:
        raise PluginError(f"{page}: the marker `{selection}` matches no installed env")
    names.sort(key=lambda name: (_family(name) or "", name))
    _documented.update(names)
    shared = set.intersection(*(set(envs[name][1]) for name in names)) if len(names) > 1 else set()
    lines: list[str] = []
    if shared:
        rows = [row for row in envs[names[0]][1] if row in shared]
        lines += [f"{'#' * heading} Fields every env here takes", "", *_table(rows), ""]
    family = None
    for name in names:
        spec, rows = envs[name]
        level = heading
        if (group := _family(name)) is not None:
            level = heading + 1
            if group != family:
                lines += [f"{'#' * heading} {group}", ""]
                family = group
        own = [row for row in rows if row not in shared]
        lines += [
            f"{'#' * level} {name}",
            "",
            f"{_prose(spec.description or '')} (`{spec.target}`)",
            "",
        ]
        lines += [*_table(own), ""] if own else ["No fields of its own.", ""]
    return "\n".join(lines)


def _cli(options: str) -> str:
    import click

    from swift_gym.cli.app import cli

    heading = "#" * int(dict(part.split("=", 1) for part in options.split()).get("heading", 2))
    root = click.Context(
        cli, info_name="swift-gym", terminal_width=HELP_WIDTH, max_content_width=HELP_WIDTH
    )
    lines = [f"{heading} swift-gym", "", "```text", root.get_help(), "```", ""]
    for name in cli.list_commands(root):
        command = cli.get_command(root, name)
        context = click.Context(
            command,
            info_name=name,
            parent=root,
            terminal_width=HELP_WIDTH,
            max_content_width=HELP_WIDTH,
        )
        lines += [f"{heading} swift-gym {name}", "", "```text", context.get_help(), "```", ""]
    return "\n".join(lines)


def _readme(argument: str, config: Any) -> str:
    path, *options = argument.split()
    shift = int(dict(option.split("=", 1) for option in options).get("shift", 0))
    text = (Path(config.config_file_path).parent / path).read_text(encoding="utf-8")
    first, _, rest = text.partition("\n")
    lines, fenced = [], False
    for line in (rest if first.startswith("# ") else text).splitlines():
        fenced ^= line.startswith("```")
        lines.append("#" * shift + line if line.startswith("#") and not fenced else line)
    return "\n".join(lines) + "\n"


def _example_files(root: Path) -> list[Path]:
    """The files of examples/ the site carries (no caches, no build outputs)."""
    skip = {"__pycache__", "build", "dist"}
    return sorted(
        path
        for path in (root / EXAMPLES).rglob("*")
        if path.is_file()
        and path.suffix in EXAMPLE_FILES
        and not any(part in skip or part.endswith(".egg-info") for part in path.parts)
    )


def _example_links(markdown: str, page: Any, config: Any) -> str:
    """Each link to a file or folder of examples/, by its path in the repository, pointed at
    the site's copy (a folder at its README); in an example's README, a link to a page of docs/
    too."""
    root = Path(config.config_file_path).parent
    docs = Path(config.docs_dir)
    in_repo = Path(page.file.abs_src_path).parent  # where the markdown is read in a clone
    in_site = (docs / page.file.src_uri).parent  # where mkdocs places it

    def point(match: re.Match[str]) -> str:
        target, anchor = match.group(1), match.group(2) or ""
        if "://" in target:
            return match.group()
        path = Path(os.path.normpath(in_repo / target))
        if in_repo != in_site and path.is_relative_to(docs):  # an example's README links a page
            return f"]({os.path.relpath(path, in_site).replace(os.sep, '/')}{anchor})"
        if not path.is_relative_to(root / EXAMPLES):
            return match.group()
        if path.is_dir():
            path = path / "README.md"
        if not path.is_file():
            raise PluginError(f"{page.file.src_uri}: the link {target} names no file of examples/")
        site = docs / path.relative_to(root)
        return f"]({os.path.relpath(site, in_site).replace(os.sep, '/')}{anchor})"

    return LINK.sub(point, markdown)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    def expand(match: re.Match[str]) -> str:
        kind, argument = match.groups()
        if kind == "readme":
            return _readme(argument, config)
        if kind == "cli":
            return _cli(argument)
        return _configs(argument, page.file.src_uri)

    return _example_links(MARKER.sub(expand, markdown), page, config)


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File, InclusionLevel

    root = Path(config.config_file_path).parent
    for uri, path in EXTRA_FILES.items():
        files.append(File.generated(config, uri, abs_src_path=str(root / path)))
    for path in _example_files(root):
        uri = path.relative_to(root).as_posix()
        inclusion = InclusionLevel.NOT_IN_NAV if path.suffix == ".md" else InclusionLevel.UNDEFINED
        files.append(File.generated(config, uri, abs_src_path=str(path), inclusion=inclusion))
    return files


def on_pre_build(config: Any) -> None:
    _documented.clear()


def on_post_build(config: Any) -> None:
    left_out = sorted(
        name
        for name, (spec, _) in _envs().items()
        if spec.distribution in SHIPPED and name not in _documented
    )
    if left_out:
        raise PluginError(f"shipped envs with no config table in the docs: {', '.join(left_out)}")
