"""Envs that start processes of their own, played on a Ray cluster: reasoning-gym's `python` tool
(a bubblewrap sandbox per episode), `mcp_tools` (a stdio MCP server per episode) and the
AgentEnv example `agent_openai_loop` (an agent program). Run through tests/ray's `netns.run`;
prints JSON last, for test_ray_heavy_envs.py.

`python ray_heavy_envs.py` starts a cluster (a head without CPUs, two workers) and, as a child
process of its own, `python ray_heavy_envs.py play ADDRESS WORK BWRAP MARK`, which plays the
episodes with `swift_gym.evaluate(..., ray_address=...)`. The cluster's node processes are this
script's children, the episodes' caller is not their ancestor: a process whose ancestors hold
an actor and not the caller ran on the actor's node. Only the child has the env-side settings
(SWIFT_GYM_MCP_SERVERS, SWIFT_GYM_BWRAP): the actors get them by forwarding, or not at all.

While the child runs, a watcher thread scans /proc every 50 ms for the marked processes (the
sandboxes' bubblewrap and interpreter, the MCP servers; see `sandbox_marks`) and records each
one's chain of ancestors when first seen.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path[1:1] = [str(HERE.parent), str(HERE.parent / "ray")]  # mcp_servers, local_cluster

import sandbox_marks  # noqa: E402
from mcp_servers import SERVER, alive  # noqa: E402

MCP_MARK = "MCP_TEST_MARK"
RG = "reasoning_gym.basic_arithmetic"
EPISODES = 3
CODE = """import os, re, time
from fractions import Fraction
time.sleep(1)
value = eval(re.sub(r"(\\d+)", r"Fraction(\\1)", {expression!r}))
print("pid", os.getpid())
print(value)"""
"""The policy's code: it sleeps a second (long enough for the watcher to see its sandbox),
then prints its PID (1 in the sandbox's PID namespace) and the question's value."""


def call(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    function = {"name": name, "arguments": json.dumps(arguments)}
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": call_id, "type": "function", "function": function}
    ]}  # fmt: skip


def question(messages: list[dict[str, Any]]) -> str:
    return next(m["content"] for m in messages if m["role"] == "user")


def places(record: dict[str, Any]) -> list[Any]:
    where = [(record.get("reset_info") or {}).get("ray")]
    return where + [(turn.get("info") or {}).get("ray") for turn in record.get("turns", [])]


def summary(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "status": record["status"],
            "error": record["error"],
            "success": record["success"],
            "total_reward": record["total_reward"],
            "places": places(record),
            "tool_results": [
                [result["content"] for result in turn.get("tool_results") or []]
                for turn in record["turns"]
            ],
            "observation": record["observation"],
        }
        for record in records
    ]


def play(address: str, mark: str, pids: Path) -> dict[str, Any]:
    """The child: the three envs' episodes, one at a time, on the cluster. At each episode's
    first reply the policy notes which marked processes live then: an earlier episode's
    sandbox or server alive there was not ended by its episode's close."""
    import swift_gym

    notes: dict[str, list[dict[str, Any]]] = {"python": [], "mcp": []}

    def note(kind: str, env: Any) -> None:
        actor = env.where["pid"]
        notes[kind].append(
            {
                "actor": actor,
                "actor_alive": alive(actor),
                "sandboxes": sandbox_marks.marked(mark),
                "servers": [pid for pid in sandbox_marks.marked(mark, MCP_MARK)],
                "server_pids_written": sorted(int(p.read_text()) for p in pids.iterdir()),
            }
        )

    def python_policy(messages: list[dict[str, Any]], env: Any) -> Any:
        last = messages[-1]
        if last["role"] == "tool":
            return f"<answer>{last['content'].splitlines()[-1]}</answer>"
        note("python", env)
        expression = question(messages).removeprefix("Calculate ").rstrip(".")
        return call("python", {"code": CODE.format(expression=expression)}, "call_python")

    def mcp_policy(messages: list[dict[str, Any]], env: Any) -> Any:
        last = messages[-1]
        if last["role"] == "tool":
            return f"<answer>{last['content']}</answer>"
        note("mcp", env)
        (add,) = [t["function"]["name"] for t in env.tools() if "add" in t["function"]["name"]]
        return call(add, {"a": 20, "b": 22}, "call_add")

    def agent_policy(messages: list[dict[str, Any]], env: Any) -> Any:
        last = messages[-1]
        if last["role"] == "tool":
            return last["content"]
        a, b = re.fullmatch(r"What is (\d+) \+ (\d+)\?", question(messages)).groups()  # type: ignore[union-attr]
        return call("add", {"a": int(a), "b": int(b)}, "call_add")

    mcp_row = {
        "name": "mcp_tools",
        "mcp_servers": ["calc"],
        "prompt": "Add 20 and 22 with the add tool.",
        "answer": "42",
    }
    runs = {
        "python": ({"name": RG, "tools": ["python"]}, python_policy),
        "mcp": (mcp_row, mcp_policy),
        "agent": ("agent_openai_loop", agent_policy),
    }
    report: dict[str, Any] = {"pid": os.getpid()}
    for kind, (env, policy) in runs.items():
        result = swift_gym.evaluate(
            env, policy, episodes=EPISODES, concurrency=1, ray_address=address
        )
        report[kind] = summary(result.records)
    report["notes"] = notes
    return report


def ancestors(pid: int) -> list[int]:
    """`pid`'s parent, its parent's, ... up to PID 1."""
    chain = []
    while pid > 1:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            break
        pid = int(stat.rpartition(")")[2].split()[1])
        chain.append(pid)
    return chain


class Watcher(threading.Thread):
    """Scans /proc every 50 ms for the marked processes; records each one once, when first
    seen: its kind, command line and ancestors."""

    def __init__(self, mark: str):
        super().__init__(daemon=True)
        self.needles = {
            "sandbox": f"{sandbox_marks.MARK}={mark}".encode(),
            "mcp_server": f"{MCP_MARK}={mark}".encode(),
        }
        self.seen: dict[int, dict[str, Any]] = {}
        self.scans = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            self.scan()
            self.done.wait(0.05)
        self.scan()

    def scan(self) -> None:
        self.scans += 1
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            pid = int(entry)
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                if pid in self.seen:  # bubblewrap's child, seen before its exec: now the code's
                    if command[0]:  # not a zombie's empty command line
                        self.seen[pid].update(what(command))
                    continue
                environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            except OSError:
                continue
            for kind, needle in self.needles.items():
                if needle in environ:
                    found = {"pid": pid, "kind": kind, "ancestors": ancestors(pid)}
                    self.seen[pid] = {**found, **what(command)}


def what(command: list[bytes]) -> dict[str, Any]:
    """A process's program, command line, and whether it is a sandbox session's (`repl`)."""
    return {
        "program": Path(command[0].decode(errors="replace")).name,
        "command": b" ".join(command).decode(errors="replace")[:300],
        "repl": b"repl" in command,  # a session's, not a probe of bwrap
    }


def main() -> None:
    from local_cluster import cluster, wait_no_actors

    from swift_gym.ray.settings import FORWARDED

    for name in FORWARDED:  # the nodes (this script's children) must not have them
        os.environ.pop(name, None)
    mark = uuid.uuid4().hex
    report: dict[str, Any] = {"script_pid": os.getpid()}
    with cluster(workers=2, cpus=2) as started, tempfile.TemporaryDirectory() as folder:
        import ray

        work = Path(folder)
        report["head"] = started.head_node.node_id
        report["workers"] = [node.node_id for node in started.worker_nodes]
        bwrap, log = sandbox_marks.marked_bwrap(work, sys.argv[1], mark)
        pids = work / "pids"
        pids.mkdir()
        server = {
            "command": [sys.executable, str(SERVER), "stdio"],
            "env": {"MCP_TEST_PIDS": str(pids), "MCP_TEST_ONLY": "add", MCP_MARK: mark},
        }
        settings = {
            "SWIFT_GYM_RAY_ADDRESS": started.address,
            "SWIFT_GYM_MCP_SERVERS": json.dumps({"calc": server}),
            "SWIFT_GYM_BWRAP": str(bwrap),
        }
        watcher = Watcher(mark)
        watcher.start()
        child = subprocess.Popen(
            [sys.executable, __file__, "play", started.address, mark, str(pids)],
            env={**os.environ, **settings},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        out, err = child.communicate(timeout=300)
        watcher.done.set()
        watcher.join()
        lines = out.strip().splitlines()
        report["child"] = {"returncode": child.returncode, "pid": child.pid, "stderr": err[-3000:]}
        report["played"] = json.loads(lines[-1]) if child.returncode == 0 and lines else None
        report["watched"] = list(watcher.seen.values())
        report["scans"] = watcher.scans
        report["sandbox_starts"] = len(log.read_text().splitlines())
        report["server_pids"] = sorted(int(p.read_text()) for p in pids.iterdir())
        ray.init(address=started.address, log_to_driver=False)
        report["actors_left"] = [a.get("ActorClassName") for a in wait_no_actors()]
        deadline = time.monotonic() + 20
        watched = [entry["pid"] for entry in report["watched"]]
        while any(alive(pid) for pid in watched) and time.monotonic() < deadline:
            time.sleep(0.05)
        report["left"] = {
            "sandboxes": sandbox_marks.marked(mark),
            "servers": sandbox_marks.marked(mark, MCP_MARK),
            "watched_alive": [pid for pid in watched if alive(pid)],
        }
        ray.shutdown()
    print(json.dumps(report))


if __name__ == "__main__":
    if sys.argv[1:2] == ["play"]:
        print(json.dumps(play(sys.argv[2], sys.argv[3], Path(sys.argv[4]))))
    else:
        main()
