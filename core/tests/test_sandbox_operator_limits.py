"""`operator_limits()`: the limits an operator sets for envs whose configs come from rows, read
from `SWIFT_GYM_SANDBOX_LIMITS` (no sandbox is started here)."""

from __future__ import annotations

import pytest

from swift_gym.sandbox import SandboxLimits, operator_limits
from swift_gym.sandbox.limits import LIMITS_VARIABLE


@pytest.mark.parametrize("value", [None, "", "  "])
def test_unset_or_empty_gives_the_defaults(value):
    environ = {} if value is None else {LIMITS_VARIABLE: value}
    assert operator_limits(environ) == SandboxLimits()


def test_the_variable_sets_any_field():
    environ = {LIMITS_VARIABLE: '{"wall_seconds": 2, "memory_bytes": 134217728, "backend": '
                                '"unsafe_local"}'}  # fmt: skip
    limits = operator_limits(environ)
    assert (limits.wall_seconds, limits.memory_bytes) == (2.0, 134217728)
    assert limits.backend == "unsafe_local" and limits.cpu_seconds == 10.0


def test_the_process_environment_is_read_by_default(monkeypatch):
    monkeypatch.setenv(LIMITS_VARIABLE, '{"output_bytes": 4096}')
    assert operator_limits().output_bytes == 4096


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ('{"wall": 5}', "wall: Extra inputs are not permitted"),
        ('{"wall_seconds": 0}', "wall_seconds: Input should be greater than 0"),
        ('{"wall_seconds": 9999}', "wall_seconds: Input should be less than or equal to 3600"),
        ("[5]", "the value"),
        ("wall_seconds=5", "the value"),
    ],
)
def test_a_bad_value_is_refused_naming_the_variable(value, said):
    with pytest.raises(ValueError) as caught:
        operator_limits({LIMITS_VARIABLE: value})
    message = str(caught.value)
    assert message.startswith(f"{LIMITS_VARIABLE} must be a JSON object of SandboxLimits fields")
    assert said in message
