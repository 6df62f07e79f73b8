"""The tests use the installed package (src layout): say how to install it when it is not."""

import importlib.util

import pytest

if importlib.util.find_spec("swift_gym_reasoning_gym") is None:
    raise pytest.UsageError(
        "swift_gym_reasoning_gym is not installed: pip install ./core ./plugins/reasoning_gym "
        "(tox -e reasoning_gym does it), then pytest again."
    )


@pytest.fixture(scope="session")
def bwrap():
    """The `bwrap` the python tool's tests run with (skipped, or failed, without it)."""
    from swift_gym.testing.bubblewrap import require_bwrap

    return require_bwrap()


@pytest.fixture
def counted_bwrap(bwrap, tmp_path):
    """(environment, log): with the environment, the sandbox starts bubblewrap through a script
    (named by the sandbox's own `SWIFT_GYM_BWRAP`) that writes a line to the log for each
    sandbox it starts (bwrap's probes are not counted), then runs the real bwrap."""
    log = tmp_path / "bwrap-starts.log"
    log.touch()
    script = tmp_path / "bwrap-counting"
    script.write_text(
        "#!/bin/sh\n"  # bubblewrap is started with an empty environment: absolute paths only
        f'case " $* " in *" repl "*|*" run "*) echo sandbox >> "{log}" ;; esac\n'
        f'exec "{bwrap}" "$@"\n'
    )
    script.chmod(0o755)
    return {"SWIFT_GYM_BWRAP": str(script)}, log
