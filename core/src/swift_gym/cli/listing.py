"""`swift-gym list`, `info` and `plugins`: what is installed, what it accepts, what broke."""

from __future__ import annotations

import os
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

import click
from rich.text import Text

from ..install_hints import ENV_PACKAGE_HINT
from ..tools.use import UNDECLARED
from . import visible
from .columns import column_lines, wrap
from .console import print_json, stderr, stdout
from .envs import offers
from .errors import EXIT_OK, EXIT_PROBLEMS
from .options import json_option
from .schema_view import field_rows

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..plugins import PluginInfo


def _warn_problems(problems: list[str]) -> None:
    for problem in problems:
        stderr().print(Text.assemble(("warning: ", "yellow"), problem))


@click.command("list")
@click.argument("patterns", nargs=-1, metavar="[PATTERN]...")
@click.option(
    "-d", "--distribution", "distributions", multiple=True, metavar="DIST",
    help="Only envs of this distribution (repeatable): swift-gym-gymnasium, ...",
)  # fmt: skip
@click.option(
    "--tools", "tools_only", is_flag=True,
    help="Only envs that may take tool calls (tools: always, opt-in or varies).",
)  # fmt: skip
@click.option(
    "--group", is_flag=True, help="One line per distribution: its version, env count and names."
)
@json_option
def list_envs(
    patterns: tuple[str, ...],
    distributions: tuple[str, ...],
    tools_only: bool,
    group: bool,
    as_json: bool,
) -> None:
    """List installed envs (reads package metadata; imports no env).

    PATTERN is a shell-style glob matched against each name and `distribution:name`
    (`'gymnasium.*'`, `'*lake*'`); with several, an env matching any is listed. The tools
    column is what each env declares: always, opt-in (when its config asks), varies (what
    the env it plays offers), no, or ? (not declared). Exits 1 when patterns, --distribution
    or --tools match no env.
    """
    from ..registry import default_registry

    registry = default_registry()
    specs = [
        spec
        for spec in registry.list()
        if _wanted(spec, patterns, distributions) and (spec.takes_tools or not tools_only)
    ]
    unknown = _unknown_distributions(registry.list(), distributions)
    for note in unknown:
        stderr().print(visible.rich(note))
    if as_json:
        print_json(
            [
                {
                    "name": spec.name,
                    "qualified_name": spec.qualified_name,
                    "distribution": spec.distribution,
                    "version": spec.version,
                    "target": spec.target,
                    "description": spec.description,
                    "tool_use": spec.tool_use,
                }
                for spec in specs
            ]
        )
        filtered = patterns or distributions or tools_only
        raise SystemExit(EXIT_PROBLEMS if not specs and filtered else EXIT_OK)
    _warn_problems(registry.problems)
    if not specs:
        if unknown and not patterns:
            raise SystemExit(EXIT_PROBLEMS)  # what -d should say is said
        if patterns or distributions or tools_only:
            wanted = " or ".join(repr(p) for p in patterns) or "any name"
            if distributions:
                wanted += " in " + " or ".join(distributions)
            if tools_only:
                wanted += " that takes tools"
            note = f"no installed env matches {wanted}: swift-gym list shows them all"
            stderr().print(visible.rich(note))
            raise SystemExit(EXIT_PROBLEMS)
        stdout().print(f"No env is installed: {ENV_PACKAGE_HINT}.", markup=False)
        return
    out = stdout()
    if group:
        headers: tuple[str, ...] = ("distribution", "version", "envs", "names")
        rows: Sequence[tuple[str, ...]] = _groups(specs)
    else:
        headers = ("name", "distribution", "version", "tools", "description")
        rows = [
            (
                spec.name,
                spec.distribution or "-",
                spec.version or "-",
                spec.tool_use or UNDECLARED,
                spec.description or "",
            )
            for spec in specs
        ]
    lines = column_lines(headers, rows, out.width)
    write = out.file.write  # plain text, one write per line: rich's layout is too slow for 100k
    for row_lines in lines:
        for fixed, last in row_lines:
            write(f"{fixed}{last}".rstrip() + "\n")
    out.file.flush()


DISTRIBUTIONS_SHOWN = 20
"""Distributions a note about an unknown `-d` lists, before `and N more`."""
GROUP_NAMES_SHOWN = 8
"""Names a `list --group` line shows of its distribution, before `and N more`."""


def _wanted(spec: Any, patterns: tuple[str, ...], distributions: tuple[str, ...]) -> bool:
    from ..plugins import normalize_distribution

    if distributions:
        own = normalize_distribution(spec.distribution or spec.plugin or "")
        if own not in {normalize_distribution(d) for d in distributions}:
            return False
    if not patterns:
        return True
    return any(
        fnmatchcase(spec.name, pattern) or fnmatchcase(spec.qualified_name, pattern)
        for pattern in patterns
    )


def _unknown_distributions(specs: list[Any], distributions: tuple[str, ...]) -> list[str]:
    """A note for each of `distributions` that no installed env comes from, with the closest
    one's name (`-d frozen_lake`: did you mean 'swift-gym-frozen-lake'?)."""
    from ..errors import did_you_mean
    from ..plugins import normalize_distribution

    names = sorted({spec.distribution or spec.plugin or "" for spec in specs} - {""})
    by_key = {normalize_distribution(name): name for name in names}
    notes = []
    for given in distributions:
        key = normalize_distribution(given)
        if key in by_key:
            continue
        note = f"-d {given}: no installed distribution has that name"
        close = did_you_mean(key, by_key)
        if close is not None:
            note += f"; did you mean {by_key[close]!r}?"
        shown = ", ".join(names[:DISTRIBUTIONS_SHOWN])
        more = (
            f" and {len(names) - DISTRIBUTIONS_SHOWN} more"
            if len(names) > DISTRIBUTIONS_SHOWN
            else ""
        )
        notes.append(f"{note} Distributions with envs: {shown or 'none'}{more}")
    return notes


def _groups(specs: list[Any]) -> list[tuple[str, str, str, str]]:
    """One row per distribution (in name order): version, count, the first names."""
    by_dist: dict[tuple[str, str], list[str]] = {}
    for spec in specs:
        key = (spec.distribution or spec.plugin or "-", spec.version or "-")
        by_dist.setdefault(key, []).append(spec.name)
    rows = []
    for (dist, version), names in sorted(by_dist.items()):
        shown = ", ".join(names[:GROUP_NAMES_SHOWN])
        if len(names) > GROUP_NAMES_SHOWN:
            shown += f" and {len(names) - GROUP_NAMES_SHOWN:,} more"
        rows.append((dist, version, f"{len(names):,}", shown))
    return rows


@click.command()
@click.argument("name")
@click.option("--schema", is_flag=True, help="Print the config's JSON Schema only.")
@json_option
def info(name: str, schema: bool, as_json: bool) -> None:
    """Show env NAME: where it comes from and its config fields (types, defaults, bounds)."""
    from ..registry import default_registry

    registry = default_registry()
    spec = registry.resolve(name)
    cls = registry.get_env_class(name)
    json_schema = cls.config_model.model_json_schema()
    if schema:
        print_json(json_schema)
        return
    fields = field_rows(json_schema)
    summary = (cls.__doc__ or "").strip().splitlines()
    details: dict[str, Any] = {
        "name": spec.name,
        "distribution": spec.distribution,
        "version": spec.version,
        "target": spec.target,
        "description": spec.description or (summary[0] if summary else None),
        "oracle_policy": offers(cls, "oracle_reply"),
        "sample_replies": offers(cls, "sample_replies"),
    }
    if as_json:
        print_json({**details, "fields": [field.as_dict() for field in fields]})
        return
    out = stdout()
    source = f"{spec.distribution} {spec.version}" if spec.distribution else spec.plugin
    out.print(Text.assemble((spec.name, "bold"), f"  from {source}  ({spec.target})"))
    if details["description"]:
        for text in wrap(details["description"], out.width):
            out.print(Text(text))
    oracle = "yes" if details["oracle_policy"] else "no (the env does not define oracle_reply)"
    out.print(f"policies: random, openai; oracle: {oracle}")
    out.print(Text("\nenv_config fields", style="bold underline"))
    for field in fields:
        line = Text.assemble((field.name, "bold cyan"), "  ", (field.type, "green"))
        line.append(f"  default {field.default}" if field.default else "")
        line.append(f"  {field.bounds}" if field.bounds else "", style="yellow")
        out.print(line)
        for description_line in wrap(field.description, out.width - 4) if field.description else ():
            out.print(Text("    " + description_line))


@click.command()
@json_option
def plugins(as_json: bool) -> None:
    """Show hook plugins: import time, those that failed to load or have a misspelt hook; then
    the env packages: distributions that register envs through the swift_gym.envs entry points.

    Exits 1 if a plugin failed, a plugin's hooks have a problem or the registry reported one.
    """
    from ..plugins import BUILTIN_PLUGINS, DISABLE_VARIABLE, LOAD_VARIABLE
    from ..registry import default_registry

    registry = default_registry()
    infos = [registry.loaded.sources[name] for name in BUILTIN_PLUGINS] + registry.plugins
    rows = [_plugin_row(info, info.name in BUILTIN_PLUGINS) for info in infos]
    filters = {var: os.environ.get(var) for var in (LOAD_VARIABLE, DISABLE_VARIABLE)}
    failed = any(row["error"] or row["problems"] for row in rows) or bool(registry.problems)
    packages = _env_packages(registry.list())
    if as_json:
        print_json(
            {
                "plugins": rows,
                "env_packages": packages,
                "problems": registry.problems,
                "filters": filters,
            }
        )
    else:
        out = stdout()
        headers = ("plugin", "version", "import", "status")  # a name starts with its dist
        cells = [
            (row["name"], row["version"] or "-", _seconds(row["load_seconds"]), _status(row))
            for row in rows
        ]
        header, *lines_of_rows = column_lines(headers, cells, out.width)
        for fixed, last in header:
            out.print(Text(f"{fixed}{last}".rstrip(), style="bold"))
        for row, lines in zip(rows, lines_of_rows, strict=True):
            style = "red" if row["error"] or row["problems"] else "green"
            for fixed, last in lines:
                out.print(Text.assemble(fixed, (last, style)))
        if packages:
            out.print("\nenv packages (swift_gym.envs entry points, no hook needed):")
            table = [(p["distribution"], p["version"] or "-", f"{p['envs']:,}") for p in packages]
            header, *package_lines = column_lines(
                ("distribution", "version", "envs"), table, out.width
            )
            for fixed, last in header:
                out.print(Text(f"{fixed}{last}".rstrip(), style="bold"))
            for lines in package_lines:
                for fixed, last in lines:
                    out.print(Text(f"{fixed}{last}".rstrip()))
        for problem in registry.problems:
            out.print(Text.assemble(("problem: ", "red"), problem))
        for var, value in filters.items():
            if value is not None:
                out.print(Text(f"{var}={value!r}"))
    raise SystemExit(EXIT_PROBLEMS if failed else EXIT_OK)


def _env_packages(specs: list[Any]) -> list[dict[str, Any]]:
    """Each distribution with envs in the swift_gym.envs group: its version and env count."""
    from ..plugins import BUILTIN_PLUGINS

    counts: dict[tuple[str, str | None], int] = {}
    for spec in specs:
        if spec.plugin in BUILTIN_PLUGINS and spec.distribution:
            key = (spec.distribution, spec.version)
            counts[key] = counts.get(key, 0) + 1
    return [
        {"distribution": dist, "version": version, "envs": count}
        for (dist, version), count in sorted(counts.items())
    ]


def _plugin_row(info: PluginInfo, builtin: bool) -> dict[str, Any]:
    return {
        "name": info.name,
        "distribution": info.distribution,
        "version": info.version,
        "builtin": builtin,
        "error": info.error,
        "problems": list(info.problems),
        "load_seconds": None if info.load_seconds is None else round(info.load_seconds, 4),
    }


def _seconds(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"


def _status(row: dict[str, Any]) -> str:
    if row["error"]:
        return f"failed: {row['error']}"
    status = "built in" if row["builtin"] else "loaded"
    if row["problems"]:
        status += "; problem: " + "; problem: ".join(row["problems"])
    return status
