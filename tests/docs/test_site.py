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
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import click
import pytest
from headless_chromium import headless_chromium
from shipped_envs import SHIPPED, shipped_envs

import swift_gym
from swift_gym.cli.app import cli
from swift_gym.cli.schema_view import field_rows

REPO = Path(__file__).resolve().parents[2]
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
    shutil.copytree(REPO / "examples", copy / "examples")  # pages link the examples' files
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


IMG = re.compile(r"<img\b([^>]*)>", re.S)
ATTRIBUTE = re.compile(r'\b(alt|src)="([^"]*)"', re.S)
FETCHES = re.compile(
    r"""(?:href|src)\s*=\s*["'](?:https?:)?//|url\(\s*["']?(?:https?:)?//|@import"""
)
MAX_PICTURE_BYTES = 200_000


def test_pictures_say_what_they_show_stay_small_and_fetch_nothing(site: Path) -> None:
    """Every picture on a page has alt text (its words, for a reader who cannot see it) and is
    a file of the site under 200 KB; a picture refers to nothing outside itself (rich's own SVG
    template loads a font from a CDN: docs/pictures/make.py drops it). How the parts fit, a
    `play` session and the report are among them."""
    shown = set()
    for page in site.rglob("*.html"):
        for attributes in IMG.findall(page.read_text(encoding="utf-8")):
            found = dict(ATTRIBUTE.findall(attributes))
            where = f"{page.relative_to(site)}: {found.get('src')}"
            assert len(html.unescape(found.get("alt", "")).split()) >= 3, where
            picture = (page.parent / found["src"]).resolve()
            assert picture.is_relative_to(site.resolve()) and picture.is_file(), where
            assert picture.stat().st_size < MAX_PICTURE_BYTES, where
            shown.add(picture.relative_to(site.resolve()).as_posix())
    assert {"pictures/parts.svg", "pictures/play.svg", "pictures/report.png"} <= shown, shown
    for name in shown:
        if name.endswith(".svg"):
            text = (site / name).read_text(encoding="utf-8")
            assert not FETCHES.search(text), name
            assert "<script" not in text, name


FITS = 100
"""Characters of the longest line that fit in a code block at 1280 px: the project's line length.
The pages looked at in the browser are those with a longer line, which must scroll."""


@pytest.fixture(scope="module")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Chromium at a 1280 x 900 window (`headless_chromium`), for the whole module."""
    # eager: the stylesheets are in; the search index need not be
    profile = tmp_path_factory.mktemp("profile")
    with headless_chromium(profile, (1280, 900), page_load_strategy="eager") as driver:
        yield driver


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1, as `mkdocs serve` shows it: its base URL."""
    handler = partial(Quiet, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


CODE = re.compile(r"<pre\b[^>]*>(?:<span></span>)?<code\b[^>]*>(.*?)</code></pre>", re.S)


def longest_code_line(page: Path) -> int:
    """The longest line of any code block of a built page, in characters."""
    blocks = (
        html.unescape(re.sub(r"<[^>]+>", "", block))
        for block in CODE.findall(page.read_text(encoding="utf-8"))
    )
    return max((len(line) for block in blocks for line in block.splitlines()), default=0)


LAYOUT = """
const content = document.querySelector('.md-content');
const overflow = e => getComputedStyle(e).overflowX;
const scrolls = e => ['auto', 'scroll'].includes(overflow(e));
const name = e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '');
const cut = [], unscrolled = [], scrolled = [];
const root = document.documentElement;
for (const e of content.querySelectorAll('article *')) {
  const right = e.getBoundingClientRect().right;
  if (e.getBoundingClientRect().width === 0) continue;
  for (let p = e.parentElement; p; p = p.parentElement) {
    if (p !== root && scrolls(p)) break;  // a scrolling box shows it by scrolling
    const edge = p === root ? root.clientWidth : p.getBoundingClientRect().right;
    if ((p === root || ['hidden', 'clip'].includes(overflow(p))) && right > edge + 1) {
      cut.push(`${name(e)} by ${Math.round(right - edge)} px in ${name(p)}`);
      break;
    }
  }
}
for (const e of content.querySelectorAll('pre, pre > code, table, .md-typeset__scrollwrap')) {
  if (e.scrollWidth > e.clientWidth + 1 && !scrolls(e)) unscrolled.push(name(e));
}
for (const code of content.querySelectorAll('pre > code')) {
  const longest = Math.max(...code.textContent.split('\\n').map(line => line.length));
  if (code.scrollWidth > code.clientWidth + 1 && longest <= arguments[0])
    scrolled.push(`${longest} characters: ${code.textContent.slice(0, 60)}`);
}
const outside = performance.getEntriesByType('resource').map(r => r.name)
  .filter(url => new URL(url).origin !== location.origin);
return {grid: document.querySelector('.md-main__inner').getBoundingClientRect().width,
        window: root.clientWidth, column: content.getBoundingClientRect().width,
        cut, unscrolled, scrolled, outside};
"""


def test_code_blocks_fit_a_wide_column_or_scroll_in_it(site: Path, served: str, chromium) -> None:
    """At a 1280 px window the page takes its width (Material's grid stopped at 1220 px, a
    736 px column), a code block of 100-character lines fits, a wider one scrolls inside the
    column, and nothing is cut: no element runs past a box that hides what overflows or past
    the window (the page's overflow-x is hidden). The pages looked at are those with a code
    line over 100 characters (their other blocks must fit); each fetches nothing from another
    host (a stylesheet's font included, which the HTML test cannot see)."""
    pages = sorted(
        page.relative_to(site).as_posix()
        for page in site.rglob("index.html")
        if longest_code_line(page) > FITS
    )
    assert len(pages) >= 5, pages
    for page in pages:
        chromium.get(served + page)
        found = chromium.execute_script(LAYOUT, FITS)
        assert found["grid"] == found["window"] == 1280 - scrollbar(chromium), page
        assert found["column"] >= 900, page
        assert found["cut"] == [], (page, found["cut"][:5])
        assert found["unscrolled"] == [], (page, found["unscrolled"][:5])
        assert found["scrolled"] == [], (page, found["scrolled"][:5])
        assert found["outside"] == [], (page, found["outside"][:5])


def scrollbar(chromium) -> int:
    """The width of the window's vertical scroll bar (headless Chromium draws one)."""
    return chromium.execute_script(
        "return window.innerWidth - document.documentElement.clientWidth"
    )
