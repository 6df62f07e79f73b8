"""The tests use the installed package (src layout): say how to install it when it is not."""

import importlib.util

import pytest

if importlib.util.find_spec("swift_gym_textarena") is None:
    raise pytest.UsageError(
        "swift_gym_textarena is not installed: pip install ./core ./plugins/textarena "
        "(tox -e textarena does it), then pytest again."
    )
