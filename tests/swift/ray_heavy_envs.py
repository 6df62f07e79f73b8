"""Envs that start processes of their own, played on a Ray cluster: reasoning-gym's `python` tool
(a bubblewrap sandbox per episode), `mcp_tools` (a stdio MCP server per episode) and the
AgentEnv example `agent_openai_loop` (an agent program). Run through tests/ray's `netns.run`;
prints JSON last, for test_ray_heavy_envs.py.

`python ray_heavy_envs.py` starts a cluster (a head without CPUs, two workers) and, as a child
process of its own, `python ray_heavy_envs.py play ADDRESS MARK PIDS`, which plays the
episodes with `swift_gym.evaluate(..., ray_address=...)`. The cluster's node processes are this
script's children, the episodes' caller is not their ancestor: a process whose ancestors hold
an actor and not the caller ran on the actor's node. Only the child has the env-side settings
(SWIFT_GYM_MCP_SERVERS, SWIFT_GYM_BWRAP): the actors get them by forwarding, or not at all.
Then `python ray_heavy_envs.py hold ADDRESS` opens a sandbox and an MCP server on actors and is
SIGKILLed with them running: nothing of it may be left.

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
NOTED = ("python", "mcp", "python_cut", "mcp_cut")
"""The runs whose policy notes, at each turn, which marked processes live."""
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

    notes: dict[str, list[dict[str, Any]]] = {kind: [] for kind in NOTED}

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

    def python_cut(messages: list[dict[str, Any]], env: Any) -> Any:
        note("python_cut", env)  # a call at every turn: cut off at max_turns, never done
        code = "import time; time.sleep(0.5); print(7)"  # long enough for the watcher
        return call("python", {"code": code}, "call_python")

    def mcp_cut(messages: list[dict[str, Any]], env: Any) -> Any:
        note("mcp_cut", env)
        return call(env.tools()[0]["function"]["name"], {"a": 1, "b": 2}, "call_add")

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
    cut = {"python_cut": (runs["python"][0], python_cut), "mcp_cut": (mcp_row, mcp_cut)}
    for kind, (env, policy) in cut.items():  # only the episode's close can end its process
        result = swift_gym.evaluate(
            env, policy, episodes=2, max_turns=1, concurrency=1, ray_address=address
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


def marked_settings(work: Path, bwrap: str, address: str) -> tuple[str, dict[str, str]]:
    """(a new mark, the settings of a child whose sandboxes and MCP servers carry it): the
    marked bubblewrap, a stdio MCP server `calc` (its pid to `work/pids`), the cluster."""
    mark = uuid.uuid4().hex
    work.mkdir()
    (work / "pids").mkdir()
    script, _ = sandbox_marks.marked_bwrap(work, bwrap, mark)
    server = {
        "command": [sys.executable, str(SERVER), "stdio"],
        "env": {"MCP_TEST_PIDS": str(work / "pids"), "MCP_TEST_ONLY": "add", MCP_MARK: mark},
    }
    return mark, {
        "SWIFT_GYM_RAY_ADDRESS": address,
        "SWIFT_GYM_MCP_SERVERS": json.dumps({"calc": server}),
        "SWIFT_GYM_BWRAP": str(script),
    }


def leftovers(mark: str, watched: list[int]) -> dict[str, list[int]]:
    """The marked processes still alive once the watched ones had 20 s to end."""
    deadline = time.monotonic() + 20
    while any(alive(pid) for pid in watched) and time.monotonic() < deadline:
        time.sleep(0.05)
    return {
        "sandboxes": sandbox_marks.marked(mark),
        "servers": sandbox_marks.marked(mark, MCP_MARK),
        "watched_alive": [pid for pid in watched if alive(pid)],
    }


def server_pids(work: Path) -> list[int]:
    return sorted(int(p.read_text()) for p in (work / "pids").iterdir())


def episodes_run(address: str, work: Path, bwrap: str) -> dict[str, Any]:
    """The child plays the three envs' episodes; what it played, what the watcher saw."""
    mark, settings = marked_settings(work, bwrap, address)
    watcher = Watcher(mark)
    watcher.start()
    child = subprocess.Popen(
        [sys.executable, __file__, "play", address, mark, str(work / "pids")],
        env={**os.environ, **settings},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = child.communicate(timeout=300)
    watcher.done.set()
    watcher.join()
    lines = out.strip().splitlines()
    return {
        "mark": mark,
        "child": {"returncode": child.returncode, "pid": child.pid, "stderr": err[-3000:]},
        "played": json.loads(lines[-1]) if child.returncode == 0 and lines else None,
        "watched": list(watcher.seen.values()),
        "scans": watcher.scans,
        "sandbox_starts": len((work / "bwrap-starts.log").read_text().splitlines()),
        "server_pids": server_pids(work),
    }


def hold(address: str) -> None:
    """The child killed mid-episode: a `python` episode whose code sleeps (past the default
    wall limit, within the forwarded one) and an `mcp_tools` episode whose policy waits, at
    once; it never returns."""
    import asyncio

    import swift_gym

    async def policy(messages: list[dict[str, Any]], env: Any) -> Any:
        if not question(messages).startswith("Calculate "):
            await asyncio.sleep(600)  # mcp_tools: its server lives as long as the episode
        return call("python", {"code": "import time; time.sleep(600)"}, "call_sleep")

    mcp_row = {"name": "mcp_tools", "mcp_servers": ["calc"], "prompt": "Wait.", "answer": "-"}
    envs = [{"name": RG, "tools": ["python"]}, mcp_row]
    swift_gym.evaluate(envs, policy, episodes=1, concurrency=2, ray_address=address)


def killed_run(address: str, work: Path, bwrap: str) -> dict[str, Any]:
    """The episodes' caller SIGKILLed while its actors hold a sandbox running code and an MCP
    server: Ray ends the actors it owned, and their processes end with them."""
    mark, settings = marked_settings(work, bwrap, address)
    settings["SWIFT_GYM_SANDBOX_LIMITS"] = json.dumps({"wall_seconds": 300, "cpu_seconds": 300})
    watcher = Watcher(mark)
    watcher.start()
    with (work / "stderr").open("w") as stderr:
        child = subprocess.Popen(
            [sys.executable, __file__, "hold", address],
            env={**os.environ, **settings},
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    deadline = time.monotonic() + 120
    while child.poll() is None and time.monotonic() < deadline:
        seen = list(watcher.seen.values())
        if server_pids(work) and any(e["repl"] and e["program"] != "bwrap" for e in seen):
            break  # the server runs, and the sandbox's interpreter
        time.sleep(0.1)
    time.sleep(0.5)  # the python call under way
    from local_cluster import live_actors, wait_no_actors

    actors = [
        {"node_id": actor.get("Address", {}).get("NodeID"), "pid": actor.get("Pid")}
        for actor in live_actors()
    ]
    alive_at_kill = [entry for entry in list(watcher.seen.values()) if alive(entry["pid"])]
    exited_early = child.poll()
    child.kill()
    child.wait()

    actors_left = [a.get("ActorClassName") for a in wait_no_actors()]
    watched = [entry["pid"] for entry in watcher.seen.values()]
    left = leftovers(mark, watched)
    watcher.done.set()
    watcher.join()
    return {
        "child_pid": child.pid,
        "exited_early": exited_early,
        "stderr": (work / "stderr").read_text()[-3000:],
        "actors_at_kill": actors,
        "alive_at_kill": alive_at_kill,
        "server_pids": server_pids(work),
        "actors_left": actors_left,
        "left": left,
    }


def main() -> None:
    from local_cluster import cluster, wait_no_actors

    from swift_gym.placement.ray.settings import FORWARDED

    for name in FORWARDED:  # the nodes (this script's children) must not have them
        os.environ.pop(name, None)
    bwrap = sys.argv[1]
    report: dict[str, Any] = {"script_pid": os.getpid()}
    with cluster(workers=2, cpus=2) as started, tempfile.TemporaryDirectory() as folder:
        import ray

        work = Path(folder)
        report["head"] = started.head_node.node_id
        report["workers"] = [node.node_id for node in started.worker_nodes]
        report.update(episodes_run(started.address, work / "episodes", bwrap))
        ray.init(address=started.address, log_to_driver=False)
        report["actors_left"] = [a.get("ActorClassName") for a in wait_no_actors()]
        report["left"] = leftovers(report["mark"], [e["pid"] for e in report["watched"]])
        report["killed"] = killed_run(started.address, work / "killed", bwrap)
        ray.shutdown()
    print(json.dumps(report))


if __name__ == "__main__":
    if sys.argv[1:2] == ["play"]:
        print(json.dumps(play(sys.argv[2], sys.argv[3], Path(sys.argv[4]))))
    elif sys.argv[1:2] == ["hold"]:
        hold(sys.argv[2])
    else:
        main()
