"""MkDocs hook: the env catalogue's tables, built from docs/envs/catalogue.json when the site is
built, so the page shows exactly what benchmarks/catalogue.py measured (`tox -e catalogue`
writes the file; nobody edits numbers by hand).

The marker `<!-- swift-gym:catalogue heading=N -->`, alone on a line, becomes the file's
settings (episodes, seeds, interval, versions), then one table per distribution under a heading
of level N: each env with its tools (as `swift-gym list` shows them), whether it sent images,
the random and the oracle policy's success rate with its interval, and why a number is missing.

Every env the installed packages register must have an entry: a new env (or an env package the
file was not measured with) fails the build, naming the envs and the command that measures them.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

DATA = "docs/envs/catalogue.json"
"""The measured file, relative to mkdocs.yml."""
MARKER = re.compile(r"^<!-- swift-gym:catalogue(?: (.*?))? -->$", re.M)
UNDECLARED = "?"


def _literal(text: str) -> str:
    """Text shown as written in a table cell: no markdown, no HTML, no cell-ending `|`."""
    escaped = html.escape(" ".join(str(text).split()), quote=False)
    for char in "|*_`[]\\{}<>":
        escaped = escaped.replace(char, f"&#{ord(char)};")
    return escaped


def _code(text: str) -> str:
    return f"<code>{_literal(text)}</code>"


def _rate(score: dict[str, Any] | None) -> str:
    """`0.15 (0.05 to 0.36)`: the success rate and its interval, two decimals."""
    if not score:
        return ""
    low, high = score["success_rate_ci95"]
    shown = f"{score['success_rate']:.2f} ({low:.2f} to {high:.2f})"
    failed = score.get("failed_episodes") or 0
    return shown + (f", {failed} of {score['episodes']} failed" if failed else "")


def _images(value: bool | None) -> str:
    return "" if value is None else ("yes" if value else "no")


def _notes(card: dict[str, Any]) -> str:
    parts = []
    if card.get("config"):
        parts.append("played with " + _code(json.dumps(card["config"], ensure_ascii=False)))
    if card.get("note"):
        parts.append(_literal(card["note"]))
    for key in ("not_measured", "oracle_note"):
        if card.get(key) and card[key] != "no oracle":
            parts.append(_literal(card[key]))
    for policy in ("random", "oracle"):
        error = (card.get(policy) or {}).get("error")
        if error:
            parts.append(f"{policy}: {_literal(error)}")
    return "; ".join(parts)


def _table(cards: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| env | tools | images | random | oracle | notes |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for card in cards:
        oracle = _rate(card["oracle"]) or (
            "no oracle" if card["oracle_note"] == "no oracle" else ""
        )
        cells = [
            _code(card["name"]),
            _literal(card.get("tool_use") or UNDECLARED),
            _images(card.get("images")),
            _rate(card["random"]) or "not measured",
            oracle or ("" if card["random"] is None else "not measured"),
            _notes(card),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def render(catalogue: dict[str, Any], heading: int) -> str:
    """The marker's markdown: the file's settings, then a table per distribution."""
    installed = {**catalogue["packages"], **catalogue.get("libraries", {})}
    packages = ", ".join(f"{name} {version}" for name, version in installed.items())
    lines = [
        f"Measured by `{catalogue['command']}`: {catalogue['episodes']} episodes per policy per "
        f"env (seeds {catalogue['seeds']}), each env's own turn limit; the interval is the "
        f"{catalogue['interval']}. Installed: {_literal(packages)}.",
        "",
    ]
    by_distribution: dict[str, list[dict[str, Any]]] = {}
    for card in catalogue["envs"]:
        by_distribution.setdefault(card["distribution"] or "-", []).append(card)
    for distribution, cards in sorted(by_distribution.items()):
        lines += [f"{'#' * heading} {distribution}", "", *_table(cards), ""]
    return "\n".join(lines)


def _load(config: Any) -> dict[str, Any]:
    path = Path(config.config_file_path).parent / DATA
    try:
        return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
    except (OSError, ValueError) as error:
        raise PluginError(f"{DATA}: {error}; `tox -e catalogue` writes it") from None


def _check_complete(catalogue: dict[str, Any]) -> None:
    """Every env the installed packages register has an entry."""
    import swift_gym

    measured = {card["name"] for card in catalogue["envs"]}
    missing = sorted(spec.name for spec in swift_gym.list_envs() if spec.name not in measured)
    if missing:
        shown = ", ".join(missing[:20]) + (
            f" and {len(missing) - 20} more" if len(missing) > 20 else ""
        )
        raise PluginError(
            f"{DATA} has no entry for {shown}: measure them with `tox -e catalogue` (or python "
            "benchmarks/catalogue.py in a venv with every env package) and commit the file"
        )


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if not MARKER.search(markdown):
        return markdown
    catalogue = _load(config)
    _check_complete(catalogue)

    def expand(match: re.Match[str]) -> str:
        options = dict(part.split("=", 1) for part in (match.group(1) or "").split())
        return render(catalogue, int(options.get("heading", 2)))

    return MARKER.sub(expand, markdown)
