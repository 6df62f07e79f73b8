"""The tests use the installed package (src layout): say how to install it when it is not."""

import importlib.util

import pytest

if importlib.util.find_spec("swift_gym_gymnasium") is None:
    raise pytest.UsageError(
        "swift_gym_gymnasium is not installed: pip install ./core ./plugins/gymnasium "
        "(tox -e gymnasium does it), then pytest again."
    )
