"""`require_bwrap()`: the `bwrap` a test of sandboxed code runs with, for env packages' tests.

A test of a tool that runs code in `swift_gym.sandbox` needs bubblewrap. Where it is missing the
test is skipped, saying how to install it; where SWIFT_GYM_SANDBOX_TESTS=required (CI sets it),
its absence fails the test instead, so a CI machine without it cannot pass by skipping.
"""

from __future__ import annotations

import os
import shutil

REQUIRED_VARIABLE = "SWIFT_GYM_SANDBOX_TESTS"


def require_bwrap() -> str:
    """The path of `bwrap`; skips the calling test when it is absent (fails it when
    SWIFT_GYM_SANDBOX_TESTS=required). Call it from a test or a fixture."""
    import pytest

    path = shutil.which("bwrap")
    if path is None:
        reason = "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
        if os.environ.get(REQUIRED_VARIABLE) == "required":
            pytest.fail(f"{reason} ({REQUIRED_VARIABLE}=required)")
        pytest.skip(reason)
    return path
