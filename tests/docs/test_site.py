"""The documentation site, built as `tox -e docs` builds it (mkdocs --strict, every env package
installed): every shipped env's config fields are in it, from the same schema `swift-gym info`
reads; the command's reference is its own `--help`; a broken link, a broken anchor or an env
left out fails the build. Run in the `docs` tox env (mkdocs and all four env packages)."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

import swift_gym
from swift_gym.cli.app import cli
from swift_gym.cli.schema_view import field_rows

REPO = Path(__file__).resolve().parents[2]
SHIPPED = {
    "swift-gym",
    "swift-gym-frozen-lake",
    "swift-gym-gymnasium",
    "swift-gym-reasoning-gym",
    "swift-gym-textarena",
}
HEADING = re.compile(r'<h([1-6]) id="[^"]*">(.*?)(?:<a class="headerlink"|</h\1>)', re.S)
SHARED = "Fields every env here takes"


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=600,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = build(REPO / "mkdocs.yml", out)
    assert done.returncode == 0, done.stderr[-5000:]
    return out


def sections(page: Path) -> list[tuple[str, str]]:
    """(heading text, the HTML up to the next heading) for each heading of a built page."""
    text = page.read_text(encoding="utf-8")
    found = list(HEADING.finditer(text))
    ends = [match.start() for match in found[1:]] + [len(text)]
    return [
        (html.unescape(re.sub(r"<[^>]+>", "", match.group(2))).strip(), text[match.end() : end])
        for match, end in zip(found, ends, strict=True)
    ]


def shipped_envs() -> list[swift_gym.EnvSpec]:
    return [spec for spec in swift_gym.list_envs() if spec.distribution in SHIPPED]


def test_every_shipped_env_has_each_config_field_with_its_description(site: Path) -> None:
    envs = shipped_envs()
    assert {spec.distribution for spec in envs} == SHIPPED, "install the core and all four"
    assert len(envs) == 171
    where: dict[str, list[tuple[str, str]]] = {}
    for page in site.rglob("index.html"):
        page_sections = sections(page)
        shared = "".join(body for title, body in page_sections if title == SHARED)
        for title, body in page_sections:
            where.setdefault(title, []).append((body, shared))
    for spec in envs:
        assert len(where.get(spec.name, [])) == 1, f"{spec.name}: one section, on one page"
        ((body, shared),) = where[spec.name]
        schema = swift_gym.get_env_class(spec.qualified_name).config_model.model_json_schema()
        tables = table_rows(body) + table_rows(shared)
        for row in field_rows(schema):
            shown = [cells for cells in tables if cells[0] == row.name]
            assert shown, f"{spec.name}: no row for {row.name}"
            description = " ".join(row.description.replace("`", "").split())
            expected = [row.name, row.type, row.default, row.bounds, description]
            assert shown[0] == expected, f"{spec.name}.{row.name}"


def table_rows(section: str) -> list[list[str]]:
    """Each table row of a built section, as the text of its cells."""
    return [
        [" ".join(html.unescape(re.sub(r"<[^>]+>", "", cell)).split()) for cell in cells]
        for cells in (
            re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
            for row in re.findall(r"<tr>(.*?)</tr>", section, re.S)
        )
        if cells
    ]


def test_descriptions_are_shown_as_text_not_markup(site: Path) -> None:
    page = (site / "envs" / "reasoning_gym-configs" / "index.html").read_text(encoding="utf-8")
    assert "in &lt;answer&gt;&lt;/answer&gt; tags" in page  # each task's description
    assert "<answer>" not in page


def test_the_command_reference_is_each_commands_own_help(site: Path) -> None:
    page = (site / "cli" / "index.html").read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    root = click.Context(cli, info_name="swift-gym", terminal_width=100, max_content_width=100)
    for name in cli.list_commands(root):
        command = cli.get_command(root, name)
        context = click.Context(
            command, info_name=name, parent=root, terminal_width=100, max_content_width=100
        )
        assert context.get_help() in text, name
    # the help's own `<placeholder>` is text on the page, not an HTML tag that hides it
    assert '"content": "<placeholder>"' in text


def test_the_api_and_every_hook_are_generated(site: Path) -> None:
    python = (site / "python" / "index.html").read_text(encoding="utf-8")
    for name in (
        "swift_gym.registry.make",
        "swift_gym.evaluation.api.evaluate",
        "swift_gym.env.Env",
    ):
        assert f'id="{name}"' in python, name
    hooks = (site / "hooks" / "index.html").read_text(encoding="utf-8")
    from swift_gym import hookspecs

    for name in vars(hookspecs):
        if name.startswith("swift_gym_"):
            assert f'id="swift_gym.hookspecs.{name}"' in hooks, name


@pytest.mark.slow
def test_a_broken_link_anchor_or_left_out_env_fails_the_build(tmp_path: Path) -> None:
    """A copy of what the build reads, broken three ways: the build fails and names each."""
    copy = tmp_path / "repo"
    copy.mkdir()
    shutil.copy2(REPO / "mkdocs.yml", copy / "mkdocs.yml")
    shutil.copytree(REPO / "docs", copy / "docs")
    shutil.copytree(REPO / "core" / "src", copy / "core" / "src")
    shutil.copytree(REPO / "benchmarks", copy / "benchmarks")
    for readme in REPO.glob("plugins/*/README.md"):
        (copy / readme.relative_to(REPO)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(readme, copy / readme.relative_to(REPO))
    assert build(copy / "mkdocs.yml", tmp_path / "ok").returncode == 0, "the copy builds"

    security = copy / "docs" / "security.md"
    security.write_text(
        security.read_text() + "\n[gone](no-such-page.md), [lost](cli.md#no-such-anchor)\n"
    )
    gymnasium = copy / "docs" / "envs" / "gymnasium.md"
    gymnasium.write_text(re.sub(r"<!-- swift-gym:configs .*? -->", "", gymnasium.read_text()))
    done = build(copy / "mkdocs.yml", tmp_path / "broken")
    assert done.returncode != 0
    assert "no-such-page.md" in done.stderr
    assert "no-such-anchor" in done.stderr
    assert "gymnasium.Taxi-v4" in done.stderr


OUTSIDE = re.compile(r"""<(?:link|script|img|iframe)\b[^>]*\b(?:href|src)=["']?(?:https?:)?//""")


def test_no_page_fetches_anything_from_outside_the_site(site: Path) -> None:
    """No font, stylesheet, script or picture from another host (Google Fonts came on every
    page): an offline or private cluster gets the whole site, and nobody learns of a visit."""
    fetched = [
        f"{page.relative_to(site)}: {match.group()}"
        for page in site.rglob("*.html")
        for match in OUTSIDE.finditer(page.read_text(encoding="utf-8"))
    ]
    assert fetched == [], fetched[:10]


PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.S)
ORDERED = re.compile(r"<ol>(.*?)</ol>", re.S)
MAX_PARAGRAPH_WORDS = 250


def test_pages_read_in_paragraphs_and_lists(site: Path) -> None:
    """No rendered paragraph over 250 words (a list broken by a fenced block, or a bullet's
    text not indented enough, renders as one paragraph with literal " - " in it), and numbered
    steps number (a step's block indented too little restarts the list: "1. 1. 1.")."""
    long, restarted = [], []
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        for match in PARAGRAPH.finditer(text):
            words = html.unescape(re.sub(r"<[^>]+>", " ", match.group(1))).split()
            if len(words) > MAX_PARAGRAPH_WORDS:
                long.append(f"{page.relative_to(site)}: {len(words)} words: {' '.join(words[:12])}")
        singles = [items for items in ORDERED.findall(text) if items.count("<li") == 1]
        if len(singles) > 1:
            restarted.append(f"{page.relative_to(site)}: {len(singles)} one-step numbered lists")
    assert long == [], long
    assert restarted == [], restarted


def test_the_catalogue_lists_every_installed_env_with_its_tools(site: Path) -> None:
    """docs/envs/catalogue.json (tox -e catalogue) has a row for every env the installed
    packages register: a new env without catalogue data fails here and fails the build."""
    page = (site / "envs" / "catalogue" / "index.html").read_text(encoding="utf-8")
    rows = {cells[0]: cells for cells in table_rows(page)}
    specs = swift_gym.list_envs()
    assert {spec.distribution for spec in specs} >= SHIPPED
    for spec in specs:
        assert spec.name in rows, f"{spec.name}: no row in the catalogue (run tox -e catalogue)"
        assert rows[spec.name][1] == (spec.tool_use or "?"), spec.name
    assert rows["frozen_lake"][4].startswith("1.00 (")  # its oracle's measured rate
    assert rows["mcp_tools"][3] == "not measured" and "mcp_servers" in rows["mcp_tools"][5]


def catalogue_hook():  # type: ignore[no-untyped-def]
    import importlib.util

    path = REPO / "docs" / "mkdocs_hooks" / "catalogue.py"
    spec = importlib.util.spec_from_file_location("catalogue_hook", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_catalogue_hook_names_envs_the_file_lacks_and_escapes_its_text() -> None:
    from mkdocs.exceptions import PluginError

    hook = catalogue_hook()
    catalogue = json.loads((REPO / hook.DATA).read_text(encoding="utf-8"))
    hook._check_complete(catalogue)  # the committed file is complete for this install
    catalogue["envs"] = [card for card in catalogue["envs"] if card["name"] != "gymnasium.Taxi-v4"]
    with pytest.raises(PluginError, match=r"no entry for gymnasium\.Taxi-v4: .*tox -e catalogue"):
        hook._check_complete(catalogue)
    loud = {**catalogue["envs"][0], "not_measured": "<script>x</script> | *bold*", "random": None}
    shown = hook.render({**catalogue, "envs": [loud]}, 2)
    assert "<script>" not in shown and "&lt;script&gt;" in shown and "| *bold*" not in shown
