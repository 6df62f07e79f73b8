"""Attacks through the workspace's tools, each a real command run through `bash` in the bubblewrap
sandbox and shown to fail: the network (a listener on the host's loopback sees nothing), the
host's files and environment (a planted secret never comes out), another episode's work tree,
processes that try to outlive their call (background jobs, nohup, setsid, a double fork: gone,
seen from the host and from the next call), the server's own pipes, fork and memory bombs,
filling the disk, gigabytes of output, binary and invalid UTF-8, and terminal escapes (returned
as text, made harmless by the escaping the faces use).
"""

from __future__ import annotations

import json
import secrets
import socket
from pathlib import Path

import pytest

from swift_gym.errors import printable
from swift_gym.report.visible import plain
from swift_gym.sandbox import SandboxLimits, Workspace, WorkspaceTools
from swift_gym.tools.toolset import ToolCall

pytestmark = pytest.mark.usefixtures("bwrap")
LIMITS = SandboxLimits(wall_seconds=20, max_processes=16, memory_bytes=256 * 1024 * 1024)
CHECKOUT = Path(__file__).resolve().parents[2]


async def bash(tools: WorkspaceTools, command: str) -> str:
    result = await tools.call(ToolCall("c", "bash", json.dumps({"command": command})))
    assert not result.is_error, result
    return result.content


def namespace_of(text: str) -> str:
    return next(word for word in text.split() if word.startswith("pid:["))


async def test_the_network_and_the_hosts_loopback_are_out_of_reach() -> None:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    probe = (
        "import socket\n"
        f"for host in ['127.0.0.1', '1.1.1.1']:\n"
        "    try:\n"
        f"        socket.create_connection((host, {port}), timeout=2); print('CONNECTED', host)\n"
        "    except OSError as error: print('refused', host, type(error).__name__)\n"
    )
    try:
        async with Workspace(LIMITS) as workspace:
            tools = WorkspaceTools(workspace)
            await workspace.write_file("probe.py", probe)
            said = await bash(
                tools,
                f"python3 probe.py; (echo x > /dev/tcp/127.0.0.1/{port}) 2>&1 | head -c 200;"
                " ls /sys/class/net 2>/dev/null; cat /proc/net/dev | tail -n +3 | cut -d: -f1",
            )
        assert "CONNECTED" not in said, said
        assert "refused 127.0.0.1" in said and "refused 1.1.1.1" in said
        assert f"/dev/tcp/127.0.0.1/{port}: Connection refused" in said
        assert said.split("\n")[-2].strip() == "lo", said  # its only interface: its own
        with pytest.raises(BlockingIOError):
            listener.accept()  # nothing ever reached the host's listener
    finally:
        listener.close()


async def test_the_hosts_files_and_environment_stay_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = secrets.token_hex(16)
    monkeypatch.setenv("SWIFT_GYM_TEST_SECRET", secret)
    host_file = Path("/tmp") / f"swift-gym-host-{secret[:8]}"
    host_file.write_text(secret)
    try:
        async with Workspace(LIMITS, source=tmp_path) as workspace:
            tools = WorkspaceTools(workspace)
            said = await bash(
                tools,
                f"env; cat /proc/*/environ 2>&1 | tr '\\0' '\\n'; ls /tmp {CHECKOUT} /root 2>&1;"
                f" cat {host_file} {CHECKOUT / 'tox.ini'} /etc/shadow 2>&1 | head -c 2000;"
                f" grep -rs {secret} /work /tmp /etc /home /run /var",
            )
        assert secret not in said and "SWIFT_GYM_TEST_SECRET" not in said
        assert "No such file or directory" in said and "[testenv" not in said
        assert {line.split("=")[0] for line in said.splitlines() if "=" in line} <= {
            "PATH", "HOME", "TMPDIR", "LANG", "PYTHONDONTWRITEBYTECODE", "PWD", "SHLVL", "_",
        }  # fmt: skip
    finally:
        host_file.unlink()


async def test_two_workspaces_never_see_each_others_trees() -> None:
    marker = secrets.token_hex(8)
    async with Workspace(LIMITS) as first, Workspace(LIMITS) as second:
        await first.write_file(f"{marker}.txt", marker)
        seen = await bash(
            WorkspaceTools(second),
            f"ls -a /work; find / -name '{marker}*' 2>/dev/null; grep -rs {marker} /tmp /work;"
            " readlink /proc/self/ns/mnt",
        )
        own = await first.run("readlink /proc/self/ns/mnt; cat *.txt")
    assert marker not in seen and own.output.endswith(marker)
    assert seen.split()[-3] != own.output.split()[0]  # their own mount namespaces


async def test_nothing_a_call_starts_outlives_it(processes_in) -> None:
    async with Workspace(LIMITS) as workspace:
        tools = WorkspaceTools(workspace)
        started = await bash(
            tools,
            "readlink /proc/self/ns/pid; sleep 100 & nohup sleep 101 >/dev/null 2>&1 &"
            " setsid sleep 102 & disown;"
            " python3 -c 'import os, time\nif os.fork() == 0:\n    os.setsid()\n"
            "    if os.fork() == 0: time.sleep(103)\n    os._exit(0)' ;"
            " (trap '' HUP TERM; sleep 104) & kill -STOP $! ; echo started",
        )
        assert "started" in started and "exit code: 0" in started, started
        namespace = namespace_of(started)
        sandbox = workspace._sandbox
        assert sandbox is not None
        assert processes_in(namespace) == [sandbox.init_pid]  # the server alone, seen from here
        listed = await bash(tools, "ls /proc | grep -E '^[0-9]+$' | tr '\\n' ' '; ps -e | wc -l")
        assert "sleep" not in listed and listed.split()[0] == "1", listed
    assert processes_in(namespace) == []


async def test_the_servers_pipes_and_memory_are_out_of_reach() -> None:
    async with Workspace(LIMITS) as workspace:
        forged = json.dumps({"id": "x", "output": "FORGED", "exit_code": 0})
        result = await workspace.run(
            f"for fd in 0 1 2 3 4 5 6; do echo '{forged}' > /proc/1/fd/$fd; done 2>&1;"
            " cat /proc/1/mem /proc/1/environ 2>&1 | head -c 300; exit 9"
        )
        assert result.exit_code == 9 and "FORGED" not in result.output.replace(forged, "")
        assert result.output.count("Permission denied") >= 7, result
        assert (await workspace.run("echo still answering")).output == "still answering\n"


async def test_fork_and_memory_bombs_are_bounded_and_the_workspace_answers() -> None:
    async with Workspace(LIMITS) as workspace:
        tools = WorkspaceTools(workspace, timeout=3)
        bomb = await bash(tools, "bomb() { bomb | bomb & }; bomb; sleep 1; echo bombed")
        assert "bombed" in bomb or "stopped" in bomb, bomb
        memory = await bash(
            tools,
            "python3 -c 'blocks = []\nwhile True: blocks.append(bytearray(16 * 2**20))' 2>&1"
            " | tail -1",
        )
        assert "MemoryError" in memory, memory
        assert await bash(tools, "echo alive") == "alive\nexit code: 0"


async def test_filling_the_disk_is_bounded_and_said() -> None:
    limits = SandboxLimits(wall_seconds=20, work_bytes=4 * 1024 * 1024)
    async with Workspace(limits) as workspace:
        tools = WorkspaceTools(workspace)
        big = await bash(tools, "head -c 64M /dev/zero > big; stat -c %s big")
        assert "File size limit exceeded" in big, big  # one file: RLIMIT_FSIZE (work_bytes)
        assert int(big.split("\n")[-2]) <= limits.work_bytes
        full = await bash(
            tools, "for n in 1 2 3; do head -c 3M /dev/zero > f$n; done; cat f* | wc -c"
        )
        assert "No space left on device" in full, full  # several: the tmpfs's size
        assert int(full.split("\n")[-2]) <= limits.work_bytes
        freed = await bash(tools, "rm big f*; echo freed > small && cat small")
        assert freed == "freed\nexit code: 0"


async def test_gigabytes_of_output_are_cut_quickly_in_bounded_memory() -> None:
    async with Workspace(LIMITS) as workspace:
        flood = await workspace.run("head -c 4G /dev/zero | tr '\\0' 'y'")
        assert flood.limit == "output size" and flood.truncated and flood.exit_code is None
        assert len(flood.output) <= LIMITS.output_bytes + 100
        assert "bytes of output cut" in flood.output
        long = await workspace.run("seq 1 100000")  # past the cap, short of a flood: kept whole
        assert long.exit_code == 0 and long.truncated
        assert long.output.startswith("1\n2\n") and long.output.endswith("99999\n100000\n")


async def test_binary_invalid_utf8_and_terminal_escapes_come_back_as_safe_text() -> None:
    async with Workspace(LIMITS) as workspace:
        tools = WorkspaceTools(workspace)
        binary = await bash(
            tools, "printf 'ok \\xff\\xfe\\x00 \\xed\\xa0\\x80 end'; head -c 4096 /dev/urandom"
        )
        binary.encode("utf-8")  # strict: no lone surrogate came through
        assert binary.startswith("ok \ufffd\ufffd\x00 ") and "\ufffd" in binary
        json.dumps(binary, ensure_ascii=False).encode("utf-8")
        await workspace.write_file("bad.txt", "line\n")
        await workspace.run("printf '\\xff\\xc3(\\n' >> bad.txt")
        read = await tools.call(ToolCall("r", "read_file", json.dumps({"path": "bad.txt"})))
        assert read.content.startswith("1\tline\n2\t\ufffd") and not read.is_error

        escapes = await bash(tools, "printf '\\033]0;pwned\\007\\033[2J\\033[31mred\\033[0m\\r'")
        assert "\x1b[2J" in escapes and "\x07" in escapes  # returned as the text it is
        for shown in (printable(escapes, 10_000), plain(escapes)):
            assert "\x1b" not in shown and "\x07" not in shown and "\r" not in shown
            assert "\\x1b[2J" in shown and "red" in shown
