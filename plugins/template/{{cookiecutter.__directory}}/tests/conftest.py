"""The tests use the installed package (src layout): say how to install it when it is not."""

import importlib.util

import pytest

if importlib.util.find_spec("{{ cookiecutter.__package }}") is None:
    raise pytest.UsageError(
        "{{ cookiecutter.__package }} is not installed: run `pip install -e '.[test]'` in the "
        "package directory, then pytest again."
    )
