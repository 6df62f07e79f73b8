"""The report in a real browser: Debian's Chromium, headless, driven through chromedriver.

The page is served by a real HTTP server on 127.0.0.1, which records every request: the page
must load with no console error, ask for nothing but itself, run no script from the data (a
record holds `<script>` and `onerror=` markup; an alert would fail the test), and its episode
browser must filter by run, env and status. Screenshots go to $SWIFT_GYM_SCREENSHOTS when set
(so they can be looked at), else to the test's temporary folder.

Needs `chromium` and `chromium-driver` (Debian); `.ci/run` installs them and sets
SWIFT_GYM_BROWSER_TESTS=required, which turns a missing browser into a failure, not a skip.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from cli_runner import run
from headless_chromium import headless_chromium, need_chromium
from test_cli_report import training_dir
from tool_records import tool_record, write_records

INJECTION = '</pre><script>alert(1)</script><img src=x onerror="alert(2)">'

need_chromium()
pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402


class Recording(SimpleHTTPRequestHandler):
    """Serves the site's folder; each subclass keeps the paths asked for in `requests`."""

    requests: ClassVar[list[str]]

    def do_GET(self) -> None:
        type(self).requests.append(self.path)
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[tuple[str, Path, list[str]]]:
    """A report of a training run and an eval run holding hostile replies, served over HTTP."""
    folder = training_dir(tmp_path / "trajectories")
    hostile = tmp_path / "hostile.jsonl"
    result = run("eval", "frozen_lake", "--policy", "random", "-n", "20", "-o", str(hostile))
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in hostile.read_text().splitlines()]
    for record in records:
        record["turns"][0]["reply"] = INJECTION + "\x1b[2J\u202e"
        record["policy"] = INJECTION
    hostile.write_text("".join(json.dumps(record) + "\n" for record in records))
    site = tmp_path / "site"
    site.mkdir()
    page = site / "report.html"
    result = run("report", str(folder), str(hostile), "-o", str(page))
    assert result.returncode == 0, result.stderr
    handler = type("Handler", (Recording,), {"requests": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: handler(*a, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/report.html", page, handler.requests
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture()
def browser(tmp_path: Path) -> Iterator[object]:
    """Chromium at a 1300 x 1400 window, keeping the page's console for the test to read."""
    with headless_chromium(
        tmp_path / "profile",
        (1300, 1400),
        "--disable-quic",
        capabilities={"goog:loggingPrefs": {"browser": "ALL"}},
    ) as driver:
        yield driver


def screenshots(fallback: Path) -> Path:
    folder = Path(os.environ.get("SWIFT_GYM_SCREENSHOTS") or fallback)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shown(driver) -> list[object]:
    return [
        e for e in driver.find_elements(By.CSS_SELECTOR, "#episodes .episode") if e.is_displayed()
    ]


def test_the_report_loads_clean_and_its_episode_browser_filters(
    served: tuple[str, Path, list[str]], browser, tmp_path: Path
) -> None:
    url, _, requests = served
    out = Path(os.environ.get("SWIFT_GYM_SCREENSHOTS") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    browser.get(url)
    assert browser.title.startswith("swift-gym report")
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []  # no script error, no refused resource, no CSP violation
    assert [path for path in requests if path != "/favicon.ico"] == ["/report.html"]
    browser.save_screenshot(str(out / "report-top.png"))

    count = browser.find_element(By.ID, "filter-count")
    total = len(browser.find_elements(By.CSS_SELECTOR, "#episodes .episode"))
    assert total == 300 + 20  # run A's 360 are cut to 300 by default, run B has 20
    assert count.text == f"{total} of {total} episodes shown"  # the script ran

    Select(browser.find_element(By.ID, "filter-run")).select_by_value("B")
    assert len(shown(browser)) == 20 and count.text == f"20 of {total} episodes shown"
    Select(browser.find_element(By.ID, "filter-run")).select_by_value("A")
    Select(browser.find_element(By.ID, "filter-status")).select_by_value("goal")
    Select(browser.find_element(By.ID, "filter-env")).select_by_value("frozen_lake_ms_swift")
    visible = shown(browser)
    assert 0 < len(visible) < 150
    assert {(e.get_attribute("data-run"), e.get_attribute("data-env"),
             e.get_attribute("data-status")) for e in visible} == {
        ("A", "frozen_lake_ms_swift", "goal")}  # fmt: skip
    assert count.text == f"{len(visible)} of {total} episodes shown"

    Select(browser.find_element(By.ID, "filter-run")).select_by_value("B")
    assert shown(browser) == [] and count.text == f"0 of {total} episodes shown"
    Select(browser.find_element(By.ID, "filter-env")).select_by_value("")
    Select(browser.find_element(By.ID, "filter-status")).select_by_value("")
    episode = shown(browser)[0]
    episode.find_element(By.TAG_NAME, "summary").click()
    reply = episode.find_element(By.CSS_SELECTOR, ".turn pre")
    assert INJECTION in reply.text  # the markup shows as text
    assert "\\x1b[2J\\u202e" in reply.text  # controls spelled out
    assert browser.find_elements(By.CSS_SELECTOR, "#episodes img") == []
    browser.execute_script("arguments[0].scrollIntoView()", episode)
    browser.save_screenshot(str(out / "report-episode.png"))
    assert (out / "report-episode.png").stat().st_size > 20_000  # a page, not a blank

    curves = browser.find_elements(By.CSS_SELECTOR, "svg[aria-label^='success rate over']")
    assert len(curves) == 1
    browser.execute_script("arguments[0].scrollIntoView()", curves[0])
    browser.save_screenshot(str(out / "report-curves.png"))


def test_the_page_opened_as_a_file_works_the_same(
    served: tuple[str, Path, list[str]], browser
) -> None:
    _, page, _ = served
    browser.get(page.as_uri())
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
    Select(browser.find_element(By.ID, "filter-status")).select_by_value("goal")
    assert {e.get_attribute("data-status") for e in shown(browser)} == {"goal"}


def test_a_seed_square_opens_its_episode_even_where_the_filters_hide_it(
    served: tuple[str, Path, list[str]], browser
) -> None:
    url, _, _ = served
    browser.get(url)
    Select(browser.find_element(By.ID, "filter-run")).select_by_value("A")  # B's hidden
    square = browser.find_element(By.CSS_SELECTOR, "svg[aria-label$='status by seed'] a")
    href = browser.execute_script("return arguments[0].getAttribute('href')", square)
    assert href.startswith("#episode-B-")  # the strips are run B's, the eval run
    browser.execute_script("arguments[0].scrollIntoView()", square)
    square.click()
    episode = browser.find_element(By.ID, href[1:])
    assert episode.is_displayed() and episode.get_attribute("open") is not None
    assert browser.find_element(By.ID, "filter-run").get_attribute("value") == ""
    assert browser.execute_script("return location.hash") == href
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


def test_the_report_reads_on_a_phone(
    served: tuple[str, Path, list[str]], browser, tmp_path: Path
) -> None:
    """At 380 px, as a phone shows it (its viewport followed): nothing wider than the screen
    but the tables, which scroll on their own."""
    url, _, _ = served
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 380, "height": 800, "deviceScaleFactor": 1, "mobile": True},
    )
    browser.get(url)
    assert browser.execute_script("return window.innerWidth") == 380  # the viewport meta
    assert browser.execute_script("return document.documentElement.scrollWidth") <= 380
    rights = browser.execute_script(
        "return Array.from(document.querySelectorAll('svg, .filters, h1, p'))"
        ".map(function (e) { return e.getBoundingClientRect().right; })"
    )
    assert rights and max(rights) <= 380
    browser.save_screenshot(str(screenshots(tmp_path) / "report-phone-top.png"))
    chart = browser.find_element(By.CSS_SELECTOR, "svg[aria-label^='success rate over']")
    browser.execute_script("arguments[0].scrollIntoView()", chart)
    browser.save_screenshot(str(screenshots(tmp_path) / "report-phone-curves.png"))
    strip = browser.find_element(By.CSS_SELECTOR, "svg[aria-label^='run A: episodes by']")
    browser.execute_script("arguments[0].scrollIntoView()", strip)
    browser.save_screenshot(str(screenshots(tmp_path) / "report-phone-distributions.png"))


def test_a_tool_episode_shows_its_calls_and_results_as_text(browser, tmp_path: Path) -> None:
    record = tool_record(0)
    record["turns"][0]["tool_calls"][1]["arguments"] = INJECTION
    record["turns"][0]["tool_results"][1]["content"] = INJECTION + "\x1b[2J"
    record["tools"][0]["function"]["description"] = INJECTION
    page = tmp_path / "report.html"
    result = run("report", str(write_records(tmp_path / "t.jsonl", [record])), "-o", str(page))
    assert result.returncode == 0, result.stderr
    browser.get(page.as_uri())
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
    episode = shown(browser)[0]
    episode.find_element(By.TAG_NAME, "summary").click()
    tools = episode.find_element(By.CSS_SELECTOR, ".tools").text
    assert f"move: {INJECTION}" in tools and "look: See the board." in tools
    calls = [e.text for e in episode.find_elements(By.CSS_SELECTOR, ".call")]
    assert calls == [
        "call look (call_1)", f"call move (call_2) {INJECTION}",
        'call move (call_3) {"direction":"right"}',
    ]  # fmt: skip
    texts = [e.text for e in episode.find_elements(By.CSS_SELECTOR, "h4")]
    assert texts == [
        "system",
        "tools (2)",
        "user",
        "turn 1: assistant",
        "tool look (call_1)",
        "tool move (call_2)",
        "turn 2: assistant",
        "tool move (call_3)",
        "user",
    ]  # fmt: skip  (turn 1's empty observation after its results was no message)
    pres = [e.text for e in episode.find_elements(By.CSS_SELECTOR, "pre")]
    assert INJECTION + "\\x1b[2J" in pres
    assert browser.find_elements(By.CSS_SELECTOR, "#episodes img") == []
    browser.execute_script("arguments[0].scrollIntoView()", episode)
    browser.save_screenshot(str(screenshots(tmp_path) / "report-tool-episode.png"))
