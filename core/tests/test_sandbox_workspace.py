"""The workspace and its tools, in the bubblewrap sandbox: a source copied in (the host's copy never
changes), commands and their exit codes, the file tools (ranges, one exact match, the errors the
model reads), the final diff, python and the env's python paths inside, the env's own hidden-test
run after restoring a test file, a subset of the tools, and `submit`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from swift_gym.sandbox import SandboxLimits, Workspace, WorkspaceError, WorkspaceTools
from swift_gym.sandbox.process import live
from swift_gym.tools.toolset import ToolCall

pytestmark = pytest.mark.usefixtures("bwrap")
LIMITS = SandboxLimits(wall_seconds=20)
CALC = "def add(a, b):\n    return a - b\n"
TEST = (
    "import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n"
    "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "tests").mkdir(parents=True)
    (root / "calc.py").write_text(CALC)
    (root / "tests" / "test_calc.py").write_text(TEST)
    (root / "tests" / "__init__.py").write_text("")
    (root / "run.sh").write_text("#!/bin/sh\necho ran\n")
    (root / "run.sh").chmod(0o755)
    return root


def call(name: str, **arguments: object) -> ToolCall:
    return ToolCall(f"call-{name}", name, json.dumps(arguments))


async def test_a_repair_episode_through_the_tools(project: Path) -> None:
    before = {path: path.read_bytes() for path in project.rglob("*") if path.is_file()}
    async with Workspace(LIMITS, source=project) as workspace:
        tools = WorkspaceTools(workspace)
        assert [tool["function"]["name"] for tool in tools.tools] == list(tools.names)
        ran = await tools.call(call("bash", command="ls; ./run.sh; python -m unittest -q 2>&1"))
        assert "calc.py" in ran.content and "ran" in ran.content
        assert "FAILED (failures=1)" in ran.content and "exit code: 1" in ran.content

        shown = await tools.call(call("read_file", path="calc.py", start_line=2))
        assert shown.content == "2\t    return a - b\n(lines 2-2 of 2)", shown.content
        missing = await tools.call(call("edit_file", path="calc.py", old_text="a + b", new_text=""))
        assert missing.is_error and "does not occur in calc.py" in missing.content
        await workspace.write_file("twice.txt", "x\nx\n")
        twice = await tools.call(call("edit_file", path="twice.txt", old_text="x", new_text="y"))
        assert twice.is_error and "occurs 2 times" in twice.content
        fixed = await tools.call(
            call("edit_file", path="calc.py", old_text="a - b", new_text="a + b")
        )
        assert not fixed.is_error and "line 2" in fixed.content
        wrote = await tools.call(call("write_file", path="notes/todo.md", content="done\n"))
        assert "Wrote notes/todo.md (1 lines" in wrote.content

        # the env grades: it restores the test file the model must not change, then runs its
        # hidden test command with a time limit of its own
        await workspace.write_file("tests/test_calc.py", TEST)
        graded = await workspace.run("python -m unittest -q tests.test_calc", timeout=30)
        assert graded.exit_code == 0 and "OK" in graded.output, graded

        diff = await workspace.diff()
        assert "--- a/calc.py\n+++ b/calc.py\n" in diff and "+    return a + b\n" in diff
        assert "diff -ruN /dev/null b/notes/todo.md" in diff and "__pycache__" not in diff
        submitted = await tools.call(call("submit"))
        assert tools.submitted and "Submitted" in submitted.content
    assert {path: path.read_bytes() for path in project.rglob("*") if path.is_file()} == before
    assert workspace not in live() and not workspace.running


async def test_file_errors_and_bad_arguments_are_results(project: Path) -> None:
    async with Workspace(LIMITS, source=project) as workspace:
        tools = WorkspaceTools(workspace)
        results = [
            await tools.call(call("read_file", path="nope.py")),
            await tools.call(call("read_file", path="tests")),
            await tools.call(call("read_file", path="calc.py", start_line=3, end_line=1)),
            await tools.call(call("read_file", path="calc.py", start_line=0)),
            await tools.call(call("write_file", path="/usr/evil.py", content="x")),
            await tools.call(call("bash")),
            await tools.call(ToolCall("c", "rm_rf", "{}")),
        ]
        assert all(result.is_error for result in results), results
        assert "No such file" in results[0].content and "directory" in results[1].content
        assert "Read-only file system" in results[4].content
        await workspace.run("mkfifo pipe")
        fifo = await tools.call(call("read_file", path="pipe"))  # never blocks
        assert fifo.is_error and "not a regular file" in fifo.content
        with pytest.raises(WorkspaceError, match="does not occur"):
            await workspace.edit_file("calc.py", "nothing like this", "")


async def test_python_paths_and_what_a_command_sees(tmp_path: Path) -> None:
    library = tmp_path / "lib"
    library.mkdir()
    (library / "helper_mod.py").write_text("VALUE = 42\n")
    async with Workspace(LIMITS, python_paths=[library]) as workspace:
        result = await workspace.run(
            "pwd; echo $HOME $TMPDIR; python3 -c 'import helper_mod; print(helper_mod.VALUE)';"
            " touch /tmp/t && echo tmp-ok; touch /usr/x 2>&1 | grep -o 'Read-only'"
        )
        assert result.output.split() == ["/work", "/work", "/tmp", "42", "tmp-ok", "Read-only"]
        assert (await workspace.run("echo hi >&2; exit 7")).exit_code == 7
        assert (await workspace.diff()) == ""  # no source, nothing written in /work


async def test_python_inside_imports_the_standard_library_not_the_hosts_packages() -> None:
    """The interpreter's install is mounted whole; its site-packages (pytest, pydantic, ... on
    this machine) is an empty read-only folder inside: only the env's python_paths add any."""
    from swift_gym.sandbox.workspace import site_packages

    assert site_packages()  # the host's interpreter has one
    folders = json.dumps(list(site_packages()))
    check = (
        "import json, os, sys\n"
        f"folders = {folders}\n"
        "print(json.dumps([sorted(os.listdir(f)) for f in folders]))\n"
        "print(all(f in sys.path for f in folders))\n"
        "open(folders[0] + '/sitecustomize.py', 'w')\n"
    )
    async with Workspace(LIMITS) as workspace:
        await workspace.write_file("check.py", check)
        result = await workspace.run("python check.py")
    lines = result.output.splitlines()
    assert json.loads(lines[0]) == [[] for _ in site_packages()]
    assert lines[1] == "True"  # the folders are on sys.path, and empty
    assert "Read-only file system" in result.output and result.exit_code == 1


async def test_a_command_past_its_time_is_killed_and_the_files_stay(project: Path) -> None:
    limits = SandboxLimits(wall_seconds=20, cpu_seconds=1)
    async with Workspace(limits, source=project) as workspace:
        await workspace.write_file("kept.txt", "still here\n")
        slow = await workspace.run("echo started; sleep 30", timeout=1)
        assert slow.timed_out and slow.exit_code is None and "started" in slow.output
        assert (await workspace.read_file("kept.txt")).text == "still here\n"
        spin = await workspace.run("python3 -c 'while True: pass'", timeout=10)
        assert spin.limit == "CPU time" and spin.exit_code is None, spin
        assert (await workspace.run("echo alive")).output == "alive\n"


async def test_a_subset_of_the_tools_and_an_ended_workspace(project: Path) -> None:
    with pytest.raises(ValueError, match="names must be some of"):
        WorkspaceTools(Workspace(LIMITS), names=["bash", "python"])
    workspace = Workspace(LIMITS, source=project)
    tools = WorkspaceTools(workspace, names=["read_file", "submit"])
    assert tools.tools.names == ("read_file", "submit")
    refused = await tools.call(call("bash", command="true"))
    assert refused.is_error and "unknown tool" in refused.content
    try:
        await workspace.start()
        sandbox = workspace._sandbox
        assert sandbox is not None
        await sandbox.kill()  # as when the server dies: the files are gone, and it is said
        ended = await workspace.run("true")
        assert ended.ended and "the workspace ended" in ended.output
        gone = await tools.call(call("read_file", path="calc.py"))
        assert gone.is_error and "its files are gone" in gone.content
    finally:
        await tools.close()
    assert sandbox not in live()


async def test_a_source_larger_than_the_work_tree_is_refused(tmp_path: Path) -> None:
    (tmp_path / "big.bin").write_bytes(b"\0" * (3 * 1024 * 1024))
    workspace = Workspace(SandboxLimits(work_bytes=2 * 1024 * 1024), source=tmp_path)
    with pytest.raises(WorkspaceError, match="could not copy the source"):
        await workspace.start()
    await workspace.close()
    with pytest.raises(ValueError, match="not a directory"):
        Workspace(source=tmp_path / "big.bin")
