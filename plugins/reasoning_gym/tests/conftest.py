"""The tests use the installed package (src layout): say how to install it when it is not."""

import importlib.util

import pytest

if importlib.util.find_spec("swift_gym_reasoning_gym") is None:
    raise pytest.UsageError(
        "swift_gym_reasoning_gym is not installed: pip install ./core ./plugins/reasoning_gym "
        "(tox -e reasoning_gym does it), then pytest again."
    )
