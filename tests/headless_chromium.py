"""Debian's Chromium, headless, driven through chromedriver, for the tests that look at a page in
a real browser (tests/test_report_browser.py, tests/docs/test_site.py).

Without the browser such a test is skipped, unless SWIFT_GYM_BROWSER_TESTS=required (`.ci/run`,
which installs `chromium` and `chromium-driver`) makes a missing browser a failure.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = (
    "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)  # fmt: skip
"""Quiet and alone: no sandbox (containers), no GPU, nothing fetched behind the page's back."""


def need_chromium() -> None:
    """Skip the test (or, at a module's top, the module) without Chromium and chromedriver, or
    fail under SWIFT_GYM_BROWSER_TESTS=required."""
    if Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists():
        return
    if os.environ.get("SWIFT_GYM_BROWSER_TESTS") == "required":
        pytest.fail(f"{CHROMIUM} or {CHROMEDRIVER} is missing: apt-get install chromium "
                    "chromium-driver")  # fmt: skip
    pytest.skip(
        "needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)",
        allow_module_level=True,
    )


@contextmanager
def headless_chromium(
    profile: Path,
    window: tuple[int, int],
    *flags: str,
    page_load_strategy: str = "normal",
    capabilities: dict[str, Any] | None = None,
) -> Iterator[Any]:
    """A driver of a fresh Chromium with its profile in `profile` and a `window` (width,
    height) window, `FLAGS` and `flags` given; quit at the end."""
    need_chromium()
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    options.page_load_strategy = page_load_strategy
    width, height = window
    for flag in (*FLAGS, f"--window-size={width},{height}", f"--user-data-dir={profile}", *flags):
        options.add_argument(flag)
    for name, value in (capabilities or {}).items():
        options.set_capability(name, value)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
