"""The sandbox as a library: one-shot runs, sessions that keep state like a notebook kernel, the
limits' config, and the errors when bubblewrap cannot isolate (never a silent fallback)."""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path

import pytest

from swift_gym.errors import SandboxUnavailableError
from swift_gym.sandbox import SandboxLimits, Session, availability, run


@pytest.mark.usefixtures("bwrap")
async def test_a_run_returns_output_exit_code_and_traceback() -> None:
    result = await run("import sys\nprint('out')\nprint('err', file=sys.stderr)\nsys.exit(3)")
    assert (result.stdout, result.stderr, result.exit_code) == ("out\n", "err\n", 3)
    assert not result.truncated and result.limit == ""
    result = await run("def f():\n    return 1 / 0\nf()")
    assert result.exit_code == 1
    assert result.stderr.startswith("Traceback (most recent call last):\n")
    assert 'File "<code>", line 2, in f' in result.stderr
    assert result.stderr.endswith("ZeroDivisionError: division by zero\n")
    assert "<string>" not in result.stderr  # the sandbox's own frames are not shown


@pytest.mark.usefixtures("bwrap")
async def test_a_run_sees_a_clean_isolated_interpreter() -> None:
    code = (
        "import os, sys\n"
        "print(sorted(os.environ))\n"
        "print(os.getcwd(), sys.flags.isolated, sys.flags.no_site)\n"
        "print([p for p in sys.path if 'site-packages' in p])\n"
        "import pydantic"
    )
    result = await run(code)
    lines = result.stdout.splitlines()
    assert lines[0] == "['HOME', 'LANG', 'PATH', 'PWD', 'TMPDIR']"
    assert lines[1] == "/work 1 1"
    assert lines[2] == "[]"  # the standard library only: nothing installed on the host
    assert "ModuleNotFoundError: No module named 'pydantic'" in result.stderr


@pytest.mark.usefixtures("bwrap")
async def test_a_session_keeps_variables_and_files_between_calls() -> None:
    async with Session() as session:
        assert (await session.call("x = 20")).value is None
        answer = await session.call("print('twice', x)\nx * 2")
        assert (answer.stdout, answer.value, answer.error) == ("twice 20\n", "40", None)
        await session.call("open('notes.txt', 'w').write('kept')")
        assert (await session.call("open('notes.txt').read()")).value == "'kept'"
        failed = await session.call("import math\nmath.sqrt(-1)")
        assert failed.error is not None and failed.error.endswith("ValueError: math domain error\n")
        assert (await session.call("x")).value == "20"  # an error loses nothing
        assert (await session.call("None")).value is None
        assert (await session.call("_")).value == "20"
        syntax = await session.call("def (")
        assert syntax.error is not None and "SyntaxError" in syntax.error
        assert (await session.call("import sys\nsys.exit(5)")).error == "SystemExit: 5\n"
        assert (await session.call("x")).value == "20"
    assert session.closed and not session.running


@pytest.mark.usefixtures("bwrap")
async def test_concurrent_calls_on_one_session_run_one_at_a_time() -> None:
    async with Session() as session:
        await session.call("n = 0")
        answers = await asyncio.gather(*(session.call("n += 1\nn") for _ in range(10)))
        assert sorted(int(a.value or 0) for a in answers) == list(range(1, 11))


@pytest.mark.usefixtures("bwrap")
async def test_cancelling_a_call_ends_the_sandbox(processes_in) -> None:
    async with Session() as session:
        namespace = (await session.call("import os; os.readlink('/proc/self/ns/pid')")).value
        task = asyncio.ensure_future(session.call("import time; time.sleep(600)"))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert namespace is not None and processes_in(namespace.strip("'")) == []
        assert (await session.call("1")).value == "1"


def test_limits_are_checked_strictly() -> None:
    with pytest.raises(ValueError, match="wall_seconds"):
        SandboxLimits(wall_seconds=0)
    with pytest.raises(ValueError, match="extra"):
        SandboxLimits(network=True)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="backend"):
        SandboxLimits(backend="docker")  # type: ignore[arg-type]


@pytest.fixture
def fresh_probe():
    availability.bubblewrap.cache_clear()
    yield
    availability.bubblewrap.cache_clear()


@pytest.mark.usefixtures("fresh_probe")
async def test_a_missing_bwrap_is_an_error_saying_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("SWIFT_GYM_BWRAP", raising=False)
    with pytest.raises(SandboxUnavailableError) as caught:
        await run("print(1)")
    message = str(caught.value)
    assert "apt-get install bubblewrap" in message
    assert 'backend="unsafe_local"' in message  # the only way around it, named as unsafe
    with pytest.raises(SandboxUnavailableError):
        await Session().call("1")


@pytest.mark.usefixtures("fresh_probe")
async def test_a_bwrap_without_namespaces_is_an_error_saying_how_to_enable_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("SWIFT_GYM_BWRAP", str(fake))
    with pytest.raises(SandboxUnavailableError) as caught:
        await run("print(1)")
    message = str(caught.value)
    assert "No permissions to create new namespace" in message
    assert "unprivileged_userns_clone" in message


@pytest.mark.usefixtures("fresh_probe")
@pytest.mark.parametrize("when", ["before", "after"])
async def test_a_bwrap_failing_after_its_probe_is_the_operators_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, bwrap: str, when: str
) -> None:
    """bubblewrap passes the first probe, then fails to start sandboxes: before it reports the
    sandbox's PID (a bad option), or after it (a mount that fails inside the new namespaces).
    Either reaches the operator as SandboxUnavailableError, with bwrap's words, never the model
    as a tool result ("the Python process ended")."""
    extra = "--no-such-option" if when == "before" else "--ro-bind /nonexistent-swift-gym /x"
    fake = tmp_path / "bwrap"
    fake.write_text(  # bwrap runs with an empty environment: its path is written in
        f'#!/bin/sh\ncase "$*" in *--info-fd*) exec {bwrap} {extra} "$@";; esac\n'
        f'exec {bwrap} "$@"\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("SWIFT_GYM_BWRAP", str(fake))
    said = "Unknown option" if when == "before" else "nonexistent-swift-gym"
    with pytest.raises(SandboxUnavailableError, match=said):
        await run("print(1)")
    session = Session()
    with pytest.raises(SandboxUnavailableError, match=said):
        await session.call("1")
    await session.close()
    from swift_gym.sandbox import PythonTool
    from swift_gym.tools import ToolCall

    tool = PythonTool()
    call = ToolCall(id="c1", name="python", arguments='{"code": "1"}')
    with pytest.raises(SandboxUnavailableError, match=said):
        await tool.call(call)
    await tool.close()
    from swift_gym.sandbox.process import live

    assert not [s for s in live() if s.process.returncode is None]


async def test_unsafe_local_runs_without_isolation_only_when_asked() -> None:
    limits = SandboxLimits(backend="unsafe_local", wall_seconds=20)
    result = await run("import os\nprint(os.getpid() != 1)", limits)
    assert result.stdout == "True\n"  # a plain child process: no namespace of its own
    async with Session(limits) as session:
        assert (await session.call("y = 3\ny * 3")).value == "9"


@pytest.mark.usefixtures("fresh_probe")
async def test_a_too_old_bwrap_is_an_error_naming_its_version(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bubblewrap 0.4.1'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("SWIFT_GYM_BWRAP", str(fake))
    with pytest.raises(SandboxUnavailableError, match=r"bubblewrap 0\.4; the sandbox needs 0\.5"):
        await run("print(1)")


@pytest.mark.usefixtures("bwrap")
async def test_a_pool_runs_each_code_in_a_fresh_sandbox_and_kills_its_spares() -> None:
    from swift_gym.sandbox import SandboxPool
    from swift_gym.sandbox.process import live

    async with SandboxPool(spares=2) as pool:
        first = await pool.run("open('left.txt', 'w').write('x'); import os; print(os.getpid())")
        second = await pool.run("import os; print(os.path.exists('left.txt'))")
        results = await asyncio.gather(*(pool.run(f"print({n} * 2)") for n in range(5)))
    assert first.stdout == "1\n" and second.stdout == "False\n"  # nothing carried over
    assert [r.stdout for r in results] == [f"{n * 2}\n" for n in range(5)]
    assert not [s for s in live() if s.process.returncode is None]
    with pytest.raises(RuntimeError, match="closed"):
        await pool.run("1")


@pytest.mark.usefixtures("bwrap")
async def test_tiny_limits_written_in_exponent_form_still_reach_the_sandbox() -> None:
    result = await run("print(2)", SandboxLimits(cpu_seconds=1e-5, wall_seconds=20.0))
    assert result.stdout == "2\n", result  # CPU time is whole seconds inside: at least 1


@pytest.mark.usefixtures("bwrap")
async def test_a_forked_copy_of_the_server_never_answers() -> None:
    """A child the code forks runs the rest of the code too, and then returns into its own copy
    of the session's server: that copy exits silently, instead of answering the call before the
    real server does (and leaving the real answer for the next call)."""
    fork = "import os, time\npid = os.fork()\nif pid:\n    time.sleep(0.5)\n"
    fork += "'child' if pid == 0 else 'server'"
    async with Session(SandboxLimits(wall_seconds=10)) as session:
        first = await session.call(fork)
        if first.error and "PermissionError" in first.error:
            pytest.skip("this host's mode refuses new processes (root without cgroups)")
        assert first.value == "'server'", first
        second = await session.call("6 * 7")
        assert second.value == "42" and not second.ended, second
