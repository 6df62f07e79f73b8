"""How the sandbox finds its bounds on a host: cgroup v1 and v2 layouts read from /proc's files
(written here, as fakes of /proc/self/mountinfo and /proc/self/cgroup, in a temporary folder),
the operator's `SWIFT_GYM_SANDBOX_CGROUPS`, and `swift-gym doctor`, which says all of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from swift_gym.cli.app import cli
from swift_gym.errors import SandboxUnavailableError
from swift_gym.sandbox import cgroups
from swift_gym.sandbox.bounds import Bounds


def _proc(tmp_path: Path, mountinfo: str, own: str) -> tuple[str, str]:
    (tmp_path / "mountinfo").write_text(mountinfo)
    (tmp_path / "cgroup").write_text(own)
    return str(tmp_path / "mountinfo"), str(tmp_path / "cgroup")


def test_v1_groups_go_beneath_this_process_own_group(tmp_path: Path) -> None:
    root = tmp_path / "fs"
    for name in ("memory/process_api/abc", "pids"):
        (root / name).mkdir(parents=True)
    mountinfo = (
        f"30 25 0:27 / {root}/memory rw,relatime shared:9 - cgroup cgroup rw,memory\n"
        f"31 25 0:28 / {root}/pids rw,relatime shared:10 - cgroup cgroup rw,pids\n"
    )
    found = cgroups._find(*_proc(tmp_path, mountinfo, "8:pids:/\n4:memory:/process_api/abc\n"))
    # a plain folder is not a cgroup: the groups' own files never appear in it
    assert found.host is None
    assert f"{root}/memory/process_api/abc/swift-gym is not a cgroup directory" in found.reason


def test_v2_without_delegated_controllers_says_how_to_get_them(tmp_path: Path) -> None:
    root = tmp_path / "unified"
    (root / "user.slice").mkdir(parents=True)
    (root / "user.slice" / "cgroup.subtree_control").write_text("cpu io\n")
    mountinfo = f"29 25 0:26 / {root} rw,nosuid - cgroup2 cgroup2 rw\n"
    found = cgroups._find(*_proc(tmp_path, mountinfo, "0::/user.slice\n"))
    assert found.host is None
    assert "memory and pids controller is not enabled" in found.reason
    assert "Delegate=yes" in found.reason


def test_no_cgroup_mount_at_all(tmp_path: Path) -> None:
    found = cgroups._find(*_proc(tmp_path, "22 1 0:21 / /proc rw - proc proc rw\n", "0::/\n"))
    assert found.host is None and "no cgroup" in found.reason


def test_the_operators_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cgroups.VARIABLE, "off")
    assert cgroups.host().host is None and cgroups.host().reason == f"{cgroups.VARIABLE}=off"
    monkeypatch.setenv(cgroups.VARIABLE, "sometimes")
    with pytest.raises(ValueError, match="must be one of auto, off, required"):
        cgroups.host()


def test_required_cgroups_that_are_missing_are_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cgroups, "_find", lambda: cgroups.HostCgroups(None, "no write access"))
    cgroups._host.cache_clear()
    try:
        with pytest.raises(SandboxUnavailableError, match=r"required.*no write access"):
            cgroups._host("required")
    finally:
        cgroups._host.cache_clear()


def test_each_mode_says_what_bounds_each_limit() -> None:
    v1 = cgroups.CgroupHost(1, {"memory": Path("/m"), "pids": Path("/p")})
    as_root = Bounds(v1, "", root=True)
    assert as_root.mode == "cgroup" and as_root.refused() == ["keyctl", "add_key", "request_key"]
    assert "pids cgroup" in as_root.enforcement()["max_processes"]
    seccomp_root = Bounds(None, "off", root=True)
    assert {"shmget", "memfd_create", "clone", "clone3"} <= set(seccomp_root.refused())
    assert "none may start" in seccomp_root.enforcement()["max_processes"]
    seccomp_user = Bounds(None, "off", root=False)
    assert "clone" not in seccomp_user.refused()
    assert "RLIMIT_NPROC" in seccomp_user.enforcement()["max_processes"]


@pytest.mark.usefixtures("bwrap")
def test_doctor_says_which_mode_the_host_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cgroups.VARIABLE, "off")
    done = CliRunner().invoke(cli, ["doctor", "--json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    assert report["ok"] and report["mode"] == "seccomp"
    assert "shmget" in report["refused_calls"]
    done = CliRunner().invoke(cli, ["doctor"])
    assert "SWIFT_GYM_SANDBOX_CGROUPS=off" in done.output


def test_doctor_fails_saying_what_to_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    from swift_gym.sandbox import availability

    availability.bubblewrap.cache_clear()
    monkeypatch.setenv("SWIFT_GYM_BWRAP", "/nonexistent/bwrap")
    try:
        done = CliRunner().invoke(cli, ["doctor"])
    finally:
        availability.bubblewrap.cache_clear()
    assert done.exit_code == 1
    assert "cannot run here" in done.output and "/nonexistent/bwrap" in done.output
