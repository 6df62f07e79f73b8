"""Reading per-test outcomes from `pytest -rA`, and the host runner on a real suite."""

from __future__ import annotations

import sys
import textwrap

from swift_gym_code.repair.projects import TEST_ENV
from swift_gym_code.repair.runner import HostRunner, read_outcomes, run_tests


def test_outcomes_are_read_from_the_short_summary():
    output = textwrap.dedent(
        """\
        PASSED tests/test_a.py::test_in_captured_output_is_not_a_result
        =========================== short test summary info ============================
        PASSED tests/test_a.py::test_ok
        PASSED tests/test_a.py::test_param[a - b]
        FAILED tests/test_a.py::test_bad - AssertionError: assert 1 == 2
        FAILED tests/test_a.py::test_p[x - y] - ValueError: nope - really
        ERROR tests/test_b.py - ImportError: no module
        SKIPPED [1] tests/test_a.py:9: not here
        2 failed, 2 passed, 1 skipped, 1 error in 0.10s
        """
    )
    outcomes = read_outcomes(output)
    assert outcomes.passed == {"tests/test_a.py::test_ok", "tests/test_a.py::test_param[a - b]"}
    assert outcomes.failed == {
        "tests/test_a.py::test_bad": "AssertionError: assert 1 == 2",
        "tests/test_a.py::test_p[x - y]": "ValueError: nope - really",
        "tests/test_b.py": "ImportError: no module",
    }


def test_the_host_runner_runs_a_real_suite(tmp_path):
    tree = tmp_path / "project"
    tree.mkdir()
    (tree / "test_demo.py").write_text(
        "import os\n"
        "def test_ok():\n    assert os.environ['PYTHONHASHSEED'] == '0'\n"
        "def test_bad():\n    assert [1, 2] == [1, 3], 'lists differ'\n"
    )
    env = " ".join(f"{k}={v}" for k, v in TEST_ENV.items())
    runner = HostRunner(sys.executable)
    try:
        outcomes = run_tests(
            runner, tree, f"{env} python -m pytest -q -rA -p no:cacheprovider", 120
        )
        slow = run_tests(runner, tree, "sleep 30", 1)
    finally:
        runner.close()
    assert outcomes.passed == {"test_demo.py::test_ok"}
    assert outcomes.failed["test_demo.py::test_bad"].startswith("AssertionError: lists differ")
    assert slow.timed_out and not slow.passed
