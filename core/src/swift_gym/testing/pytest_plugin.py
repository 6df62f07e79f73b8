"""swift-gym's pytest plugin (entry point `pytest11`, name `swift_gym`).

It registers the `swift_gym_conformance` marker that `conformance_tests` puts on its tests (so
`pytest -m swift_gym_conformance` runs only them) and the `--swift-gym-block-budget` option.
Loaded into every pytest run where swift-gym is installed, so it imports nothing but the
standard library: the kit loads only when a test module asks for it. `-p no:swift_gym` turns
it off.
"""

from __future__ import annotations

from typing import Any

BUDGET_DEST = "swift_gym_block_budget"
_state = {"active": False}


def active() -> bool:
    """Whether pytest loaded this plugin (and so knows the marker)."""
    return _state["active"]


def _seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise ValueError("must be a positive number of seconds")
    return value


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("swift-gym", "swift-gym env conformance")
    group.addoption(
        "--swift-gym-block-budget",
        dest=BUDGET_DEST,
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="seconds one env reset/step may block the event loop in conformance tests "
        "(default 0.5, or what the test sets)",
    )


def pytest_configure(config: Any) -> None:
    _state["active"] = True
    config.addinivalue_line(
        "markers", "swift_gym_conformance: env conformance checks from swift_gym.testing"
    )


def pytest_unconfigure(config: Any) -> None:
    _state["active"] = False
