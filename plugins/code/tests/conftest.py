"""The tests use the installed package (src layout): say how to install it when it is not;
and the `bwrap` every test that grades an answer needs (the hidden tests run in the sandbox)."""

import importlib.util

import pytest

if importlib.util.find_spec("swift_gym_code") is None:
    raise pytest.UsageError(
        "swift_gym_code is not installed: pip install ./core ./plugins/code (tox -e code does "
        "it), then pytest again."
    )


@pytest.fixture(scope="session")
def bwrap():
    """The `bwrap` the sandbox runs with (skipped, or failed under
    SWIFT_GYM_SANDBOX_TESTS=required, without it)."""
    from swift_gym.testing.bubblewrap import require_bwrap

    return require_bwrap()
