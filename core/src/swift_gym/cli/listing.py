"""`swift-gym list`, `info` and `plugins`: what is installed, what it accepts, what broke."""

from __future__ import annotations

import os
from typing import Any

import click
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from .console import cells, print_json, stderr, stdout
from .envs import offers
from .errors import EXIT_OK, EXIT_PROBLEMS
from .options import json_option
from .schema_view import field_rows


def _warn_problems(problems: list[str]) -> None:
    for problem in problems:
        stderr().print(Text.assemble(("warning: ", "yellow"), problem))


@click.command("list")
@json_option
def list_envs(as_json: bool) -> None:
    """List installed envs (reads package metadata; imports no env)."""
    from ..registry import default_registry

    registry = default_registry()
    specs = registry.list()
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
                }
                for spec in specs
            ]
        )
        return
    _warn_problems(registry.problems)
    if not specs:
        stdout().print(
            "No env is installed: pip install an env package, e.g. swift-gym-frozen-lake."
        )
        return
    table = Table("name", "distribution", "version", "description")
    for spec in specs:
        table.add_row(
            *cells(spec.name, spec.distribution or "-", spec.version or "-", spec.description)
        )
    stdout().print(table)


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
        out.print(Text(details["description"]))
    oracle = "yes" if details["oracle_policy"] else "no (the env does not define oracle_reply)"
    out.print(f"policies: random, openai; oracle: {oracle}")
    out.print(Text("\nenv_config fields", style="bold underline"))
    for field in fields:
        line = Text.assemble((field.name, "bold cyan"), "  ", (field.type, "green"))
        line.append(f"  default {field.default}" if field.default else "")
        line.append(f"  {field.bounds}" if field.bounds else "", style="yellow")
        out.print(line)
        if field.description:
            out.print(Padding(Text(field.description), (0, 0, 0, 4), expand=False))


@click.command()
@json_option
def plugins(as_json: bool) -> None:
    """Show hook plugins, those that failed to load (with the reason), and registry problems.

    Exits 1 if a plugin failed or the registry reported a problem.
    """
    from ..plugins import BUILTIN_PLUGINS, DISABLE_VARIABLE, LOAD_VARIABLE
    from ..registry import default_registry

    registry = default_registry()
    rows: list[dict[str, Any]] = [
        {"name": name, "distribution": None, "version": None, "builtin": True, "error": None}
        for name in BUILTIN_PLUGINS
    ]
    rows += [
        {
            "name": plugin.name,
            "distribution": plugin.distribution,
            "version": plugin.version,
            "builtin": False,
            "error": plugin.error,
        }
        for plugin in registry.plugins
    ]
    filters = {var: os.environ.get(var) for var in (LOAD_VARIABLE, DISABLE_VARIABLE)}
    failed = any(row["error"] for row in rows) or bool(registry.problems)
    if as_json:
        print_json({"plugins": rows, "problems": registry.problems, "filters": filters})
    else:
        table = Table("plugin", "distribution", "version", "status")
        for row in rows:
            status = Text("built in" if row["builtin"] else "loaded", style="green")
            if row["error"]:
                status = Text(f"failed: {row['error']}", style="red")
            table.add_row(
                *cells(row["name"], row["distribution"] or "-", row["version"] or "-", status)
            )
        out = stdout()
        out.print(table)
        for problem in registry.problems:
            out.print(Text.assemble(("problem: ", "red"), problem))
        for var, value in filters.items():
            if value is not None:
                out.print(Text(f"{var}={value!r}"))
    raise SystemExit(EXIT_PROBLEMS if failed else EXIT_OK)
