"""The conformance kit: does an env keep the contract ms-swift relies on?

    from swift_gym.testing import check_env, conformance_tests

    check_env(MyEnv, configs=[{}, {"seed": 3}]).raise_for_violations()
    test_conformance = conformance_tests(MyEnv, configs=[{}, {"seed": 3}])  # in a test module

`CHECKS` names and explains every check. Attributes load on first use, so the pytest plugin
(`swift_gym.testing.pytest_plugin`) costs nothing in test runs that do not use the kit.
"""

from __future__ import annotations

from ..lazy import attach

_EXPORTS = {
    "CHECKS": "report",
    "ConformanceError": "report",
    "ConformanceReport": "report",
    "Violation": "report",
    "GARBAGE_REPLIES": "replies",
    "CheckOptions": "options",
    "assert_conforms": "check",
    "check_env": "check",
    "check_env_async": "check",
    "conformance_tests": "suite",
}

__all__ = [
    "CHECKS",
    "GARBAGE_REPLIES",
    "CheckOptions",
    "ConformanceError",
    "ConformanceReport",
    "Violation",
    "assert_conforms",
    "check_env",
    "check_env_async",
    "conformance_tests",
]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .check import assert_conforms, check_env, check_env_async
    from .options import CheckOptions
    from .replies import GARBAGE_REPLIES
    from .report import CHECKS, ConformanceError, ConformanceReport, Violation
    from .suite import conformance_tests


__getattr__, __dir__ = attach(__name__, _EXPORTS, __all__)
