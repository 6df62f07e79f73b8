"""`swift-gym export`: episode records become ms-swift SFT rows, each conversation exactly as the
policy was shown it; which episodes are kept (never a failed or unplayed one), what is skipped
and why, and files that are not what they should be.

The first test checks "exactly as shown" against the real thing: the requests an
OpenAI-compatible server on 127.0.0.1 received while `swift-gym eval` played through it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cli_runner import SCRIPT, run
from openai_server import JSONHandler, completion, solve_reply
from tool_records import LOOK_TOOL, MOVE_TOOL, tool_record

SYSTEM = "You play. Answer with a tag."
ODD_TEXT = " \x1b[2J\x00\x07\u202e\u2028\ufeff\x7f\\n \U0001f600 end"
"""Controls, an escape sequence, bidi and invisible characters, a separator, a real emoji: a
model may say any of them, and the row must hold them exactly."""


def reply_to(messages: list[dict[str, Any]]) -> str:
    """The scripted model: the right FrozenLake move, then odd characters."""
    return solve_reply(messages[-1]["content"]) + ODD_TEXT


class Listener(ThreadingHTTPServer):
    request_queue_size = 128
    daemon_threads = True
    block_on_close = False


@pytest.fixture
def model_server() -> Iterator[tuple[str, list[list[dict[str, Any]]]]]:
    """An OpenAI-compatible server on 127.0.0.1; yields its URL and the `messages` of every
    chat request it received."""
    seen: list[list[dict[str, Any]]] = []
    lock = threading.Lock()

    class Handler(JSONHandler):
        def do_GET(self) -> None:
            self.reply(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with lock:
                seen.append(body["messages"])
            self.reply(200, completion(reply_to(body["messages"])))

    httpd = Listener(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", seen
    httpd.shutdown()
    httpd.server_close()


def rows_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_each_row_is_the_chat_the_model_was_sent_plus_its_reply(
    model_server: tuple[str, list[list[dict[str, Any]]]], tmp_path: Path
) -> None:
    url, seen = model_server
    trajectories, sft = tmp_path / "t.jsonl", tmp_path / "sft.jsonl"
    played = run(
        "eval", "frozen_lake", "--policy", "openai", "--base-url", url, "-n", "6",
        "-o", str(trajectories), env={"NO_PROXY": "127.0.0.1"}, drop=["OPENAI_API_KEY"],
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    result = run("export", str(trajectories), "-o", str(sft))
    assert result.returncode == 0, result.stderr
    rows = rows_of(sft)
    assert len(rows) == 6 and all(set(row) == {"messages"} for row in rows)
    for row in rows:
        *shown, last = row["messages"]
        assert shown in seen  # the whole chat of the last request, byte for byte
        assert last == {"role": "assistant", "content": reply_to(shown)}
    # every request the model got is a prefix of one row: no turn of any episode is missing
    for messages in seen:
        assert any(row["messages"][: len(messages)] == messages for row in rows)
    assert sum(len(row["messages"]) // 2 for row in rows) == len(seen)


def record(index: int, status: str, turns: int = 2, **extra: Any) -> dict[str, Any]:
    """An episode record as `swift-gym eval -o` writes it."""
    return {
        "index": index,
        "env": "frozen_lake",
        "seed": index,
        "env_config": {"name": "frozen_lake", "seed": index},
        "policy": "oracle",
        "system_prompt": SYSTEM,
        "observation": f"start {index}",
        "reset_info": {},
        "turns": [
            {
                "turn": t,
                "reply": f"reply {index}.{t}",
                "action": "up",
                "valid_action": True,
                "observation": f"obs {index}.{t}",
                "reward": 0.0,
                "done": t == turns,
                "info": {},
            }
            for t in range(1, turns + 1)
        ],
        "num_turns": turns,
        "total_reward": 1.0 if status == "goal" else 0.0,
        "success": status == "goal",
        "status": status,
        "error": "step() raised ValueError: boom" if status == "error" else None,
        **extra,
    }


def write(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """Two goals, a hole, a cut-off, a failed episode and one the run never started."""
    return write(
        tmp_path / "t.jsonl",
        [
            record(0, "goal"),
            record(1, "hole", turns=1),
            record(2, "goal", turns=3),
            record(3, "max_turns"),
            record(4, "error", turns=1),
            {**record(5, "not_played", turns=0), "system_prompt": None, "observation": None},
        ],
    )


def export(*args: str) -> tuple[Any, list[dict[str, Any]]]:
    """Run `swift-gym export ARGS -o -`; the process and the rows it printed."""
    result = run("export", *args, "-o", "-")
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    return result, rows


def test_the_conversation_ends_with_the_last_reply(mixed: Path) -> None:
    result, rows = export(str(mixed))
    assert result.returncode == 0, result.stderr
    assert rows[0] == {
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": "start 0"},
            {"role": "assistant", "content": "reply 0.1"},
            {"role": "user", "content": "obs 0.1"},
            {"role": "assistant", "content": "reply 0.2"},
        ]
    }  # obs 0.2 came after the end: the model never saw it


def test_failed_and_unplayed_episodes_are_never_exported(mixed: Path) -> None:
    result, rows = export(str(mixed))
    assert [row["messages"][1]["content"] for row in rows] == [
        "start 0", "start 1", "start 2", "start 3",
    ]  # fmt: skip
    assert "wrote 4 rows to stdout from 6 episodes" in result.stderr
    assert "skipped 2: 1 failed, 1 not played" in result.stderr


def test_status_filter_is_repeatable(mixed: Path) -> None:
    result, rows = export(str(mixed), "--status", "goal")
    assert [row["messages"][1]["content"] for row in rows] == ["start 0", "start 2"]
    assert "wrote 2 rows" in result.stderr
    assert "1 status hole (not selected)" in result.stderr
    assert "1 status max_turns (not selected)" in result.stderr
    result, rows = export(str(mixed), "--status", "goal", "--status", "hole")
    assert [row["messages"][1]["content"] for row in rows] == ["start 0", "start 1", "start 2"]


def test_min_reward_and_successful(mixed: Path, tmp_path: Path) -> None:
    result, rows = export(str(mixed), "--min-reward", "0.5")
    assert [row["messages"][1]["content"] for row in rows] == ["start 0", "start 2"]
    assert "2 total reward below 0.5" in result.stderr
    result, rows = export(str(mixed), "--min-reward", "0")
    assert len(rows) == 4  # the bound is inclusive
    partly = write(
        tmp_path / "p.jsonl",
        [record(0, "goal"), {**record(1, "done"), "total_reward": 0.5, "success": False}],
    )
    result, rows = export(str(partly), "--successful")
    assert [row["messages"][1]["content"] for row in rows] == ["start 0"]
    assert "1 not successful" in result.stderr


def test_no_system_prompt_no_system_message(tmp_path: Path) -> None:
    # ms-swift (and eval) add a system message only for a non-empty prompt: an empty one is none
    path = write(
        tmp_path / "t.jsonl",
        [{**record(0, "goal", turns=1), "system_prompt": prompt} for prompt in (None, "")],
    )
    result, rows = export(str(path))
    assert result.returncode == 0, result.stderr
    expected = [
        {"role": "user", "content": "start 0"},
        {"role": "assistant", "content": "reply 0.1"},
    ]
    assert rows == [{"messages": expected}, {"messages": expected}]


def test_odd_characters_are_kept_exactly_as_json_escapes(tmp_path: Path) -> None:
    odd = record(0, "goal", turns=1)
    odd["turns"][0]["reply"] = "<action>up</action>" + ODD_TEXT
    odd["observation"] = "start\r\n\t" + ODD_TEXT
    sft = tmp_path / "sft.jsonl"
    result = run("export", str(write(tmp_path / "t.jsonl", [odd])), "-o", str(sft))
    assert result.returncode == 0, result.stderr
    text = sft.read_text(encoding="utf-8")
    assert "\x1b" not in text and "\x00" not in text  # controls are JSON escapes, not raw bytes
    assert len(text.splitlines()) == 1  # one row, one line (no raw newline or separator)
    (row,) = rows_of(sft)
    assert row["messages"][1]["content"] == odd["observation"]
    assert row["messages"][2]["content"] == odd["turns"][0]["reply"]


def test_a_lone_surrogate_skips_its_episode_only(tmp_path: Path) -> None:
    # valid JSON, valid in eval's records, but swift sft's JSON reader (pyarrow) refuses a whole
    # file holding one: the episode is skipped and named, the others are written
    bad = record(1, "goal")
    bad["turns"][1]["reply"] = "<action>up</action> \ud800"
    path = tmp_path / "t.jsonl"
    path.write_text(
        "".join(json.dumps(r) + "\n" for r in (record(0, "goal"), bad, record(2, "goal"))),
        encoding="utf-8",
    )
    assert "\\ud800" in path.read_text(encoding="utf-8")
    result, rows = export(str(path))
    assert result.returncode == 0, result.stderr
    assert [row["messages"][1]["content"] for row in rows] == ["start 0", "start 2"]
    assert "episode 1" in result.stderr and "turn 2 reply" in result.stderr
    assert "\\ud800" in result.stderr  # shown escaped, as every text from a model
    assert "1 with a lone surrogate" in result.stderr


def test_records_that_hold_no_conversation_are_named_and_skipped(tmp_path: Path) -> None:
    no_turns = {**record(1, "done", turns=0)}
    number_reply = record(2, "goal")
    number_reply["turns"][0]["reply"] = 7
    no_observation = {**record(3, "goal"), "observation": None}
    middle = record(4, "goal", turns=3)
    middle["turns"][1]["observation"] = ["a", "list"]
    no_status = {key: value for key, value in record(5, "goal").items() if key != "status"}
    path = write(
        tmp_path / "t.jsonl",
        [record(0, "goal"), no_turns, number_reply, no_observation, middle, no_status],
    )
    result, rows = export(str(path))
    assert result.returncode == 0, result.stderr
    assert [row["messages"][1]["content"] for row in rows] == ["start 0"]
    for shown in (
        "episode 1: no turns",
        "episode 2: turn 1 reply is 7, not a string",
        "episode 3: observation is None, not a string",
        "episode 4: turn 2 observation is ['a', 'list'], not a string",
        "episode 5: status is None, not a string",
    ):
        assert shown in result.stderr
    assert "skipped 5: 5 not a conversation" in result.stderr


def test_lines_that_are_no_records_are_warned_about(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    deep = "[" * 5000 + "]" * 5000
    good = json.dumps(record(0, "goal"))
    path.write_text(f"not json\n{deep}\n[1, 2]\n{good}\n\n", encoding="utf-8")
    result, rows = export(str(path))
    assert result.returncode == 0, result.stderr
    assert len(rows) == 1
    assert "line 1: not valid JSON" in result.stderr and "line 2: refused" in result.stderr
    assert "line 3" in result.stderr


def test_a_file_with_no_episode_is_an_error_and_the_output_is_kept(tmp_path: Path) -> None:
    output = tmp_path / "sft.jsonl"
    output.write_text("old\n")
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b"\xff\xfe not text\n{}\n")
    result = run("export", str(garbage), "-o", str(output))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert output.read_text() == "old\n"


def test_nothing_selected_writes_nothing(mixed: Path, tmp_path: Path) -> None:
    output = tmp_path / "sft.jsonl"
    output.write_text("old\n")
    result = run("export", str(mixed), "--status", "won", "-o", str(output))
    assert result.returncode == 1  # nothing matched: a finding, not a usage error
    assert "no episode to export" in result.stderr and "status goal" in result.stderr
    assert output.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--status", "error"], "cannot select status error: failed episodes are never"),
        (["--status", "not_played"], "status not_played: not played episodes"),
        (["--min-reward", "nan"], "the minimum reward must be a finite number"),
        (["--min-reward", "inf"], "the minimum reward must be a finite number"),
    ],
)
def test_options_that_can_select_nothing_useful_are_usage_errors(
    mixed: Path, args: list[str], message: str
) -> None:
    result = run("export", str(mixed), *args)
    assert result.returncode == 2 and message in result.stderr


def test_a_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    result = run("export", str(tmp_path / "missing.jsonl"))
    assert result.returncode == 2 and "does not exist" in result.stderr


def test_several_files_and_a_directory_of_training_trajectories(tmp_path: Path) -> None:
    folder = tmp_path / "trajectories"
    folder.mkdir()
    write(folder / "host-2.jsonl", [record(2, "goal")])
    write(folder / "host-1.jsonl", [record(1, "goal")])
    (folder / "notes.txt").write_text("not a trajectory file\n")
    single = write(tmp_path / "t.jsonl", [record(0, "goal")])
    result, rows = export(str(single), str(folder))
    assert result.returncode == 0, result.stderr
    assert [row["messages"][1]["content"] for row in rows] == ["start 0", "start 1", "start 2"]
    assert "from 3 episodes" in result.stderr


def test_an_empty_directory_is_an_error(tmp_path: Path) -> None:
    result = run("export", str(tmp_path))
    assert result.returncode == 2 and "no .jsonl file" in result.stderr


def test_export_is_listed_in_help() -> None:
    result = run("--help")
    assert "export" in result.stdout
    result = run("export", "--help")
    assert result.returncode == 0 and "swift sft" in result.stdout


def test_the_output_never_replaces_an_input(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", [record(0, "goal")])
    before = path.read_text()
    link = tmp_path / "link.jsonl"
    link.symlink_to(path)
    for output in (path, link):
        result = run("export", str(path), "-o", str(output))
        assert result.returncode == 2 and "is the output too" in result.stderr
        assert path.read_text() == before


def test_the_output_in_the_directory_read_is_not_read(tmp_path: Path) -> None:
    # twice: the second run finds the first one's sft.jsonl (and, while writing, its own
    # hidden temporary file) in the directory, and reads neither
    write(tmp_path / "host-1.jsonl", [record(0, "goal"), record(1, "goal")])
    output = tmp_path / "sft.jsonl"
    for _ in range(2):
        result = run("export", str(tmp_path), "-o", str(output))
        assert result.returncode == 0, result.stderr
        assert "wrote 2 rows" in result.stderr and "skipped" not in result.stderr
    assert len(rows_of(output)) == 2


def test_episodes_from_stdin(mixed: Path) -> None:
    result = run("export", "-", "--status", "goal", stdin=mixed.read_text())
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == 2


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_mid_export_leaves_the_old_output(signum: int, code: int, tmp_path: Path) -> None:
    # the episodes come through a FIFO that stays open: the command is still reading when
    # the signal comes (its open of the FIFO is what lets ours return)
    fifo, output = tmp_path / "episodes", tmp_path / "sft.jsonl"
    os.mkfifo(fifo)
    output.write_text("old\n")
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
    process = subprocess.Popen(
        [str(SCRIPT), "export", str(fifo), "-o", str(output)],
        stderr=subprocess.PIPE, text=True, env={**environ, "NO_COLOR": "1"},
    )  # fmt: skip
    try:
        with fifo.open("w") as episodes:
            episodes.write("".join(json.dumps(record(i, "goal")) + "\n" for i in range(50)))
            episodes.flush()
            process.send_signal(signum)
            _, stderr = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == code and "Traceback" not in stderr
    assert output.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["episodes", "sft.jsonl"]


def test_many_records_without_a_chat_are_warned_about_briefly(tmp_path: Path) -> None:
    broken = [{**record(i, "goal"), "observation": 0} for i in range(1, 31)]
    result, rows = export(str(write(tmp_path / "t.jsonl", [record(0, "goal"), *broken])))
    assert result.returncode == 0 and len(rows) == 1
    assert result.stderr.count("skipped: ") == 20
    assert "skipped 30 records in all that hold no chat" in result.stderr
    assert (
        "wrote 1 row to stdout from 31 episodes" in result.stderr
        and "skipped 30: 30 not a conversation" in result.stderr
    )


def test_a_tool_episode_is_an_agent_row_as_swift_sft_reads_it(tmp_path: Path) -> None:
    # ms-swift's agent format (docs: Instruction/Agent-support): `tools` as a JSON string, each
    # call a `tool_call` message {"name", "arguments": {...}}, each result a `tool_response`
    tools = tool_record(0)
    path = write(tmp_path / "t.jsonl", [tools, record(1, "goal", turns=1)])
    result, rows = export(str(path))
    assert result.returncode == 0, result.stderr
    row, text_row = rows
    assert set(row) == {"tools", "messages"}
    assert json.loads(row["tools"]) == [MOVE_TOOL, LOOK_TOOL]
    assert text_row == {
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": "start 1"},
            {"role": "assistant", "content": "reply 1.1"},
        ]
    }  # text episodes as before: no tools key
    messages = row["messages"]
    assert [m["role"] for m in messages] == [
        "system", "user", "assistant", "tool_call", "tool_call", "tool_response",
        "tool_response", "tool_call",
    ]  # fmt: skip
    assert messages[:3] == [
        {"role": "system", "content": "Use the tools."},
        {"role": "user", "content": "start 0"},
        {"role": "assistant", "content": "I look, then go down."},
    ]
    calls = [json.loads(m["content"]) for m in messages if m["role"] == "tool_call"]
    assert calls == [
        {"name": "look", "arguments": {}},
        {"name": "move", "arguments": {"direction": "down"}},
        {"name": "move", "arguments": {"direction": "right"}},
    ]
    assert [m["content"] for m in messages if m["role"] == "tool_response"] == [
        "S.\n.G", "moved down",
    ]  # fmt: skip
    # the empty observation after turn 1 was never a message; the results of the last calls
    # and the last observation came after the end: the model never saw them


def test_a_tool_observation_follows_the_results(tmp_path: Path) -> None:
    tools = tool_record(0)
    tools["turns"][0]["observation"] = "You moved."
    result, rows = export(str(write(tmp_path / "t.jsonl", [tools])))
    assert result.returncode == 0, result.stderr
    roles = [(m["role"], m["content"]) for m in rows[0]["messages"]][5:8]
    assert roles == [
        ("tool_response", "S.\n.G"), ("tool_response", "moved down"), ("user", "You moved."),
    ]  # fmt: skip


def test_tool_episodes_that_cannot_be_rebuilt_are_named_and_skipped(tmp_path: Path) -> None:
    not_json = tool_record(1)
    not_json["turns"][1]["tool_calls"][0]["arguments"] = '{"direction": "ri'
    no_name = tool_record(2)
    no_name["turns"][0]["tool_calls"][1]["name"] = 5
    result_text = tool_record(3)
    result_text["turns"][0]["tool_results"][0]["content"] = None
    bad_tools = {**tool_record(4), "tools": "move"}
    calls_not_list = tool_record(5)
    calls_not_list["turns"][0]["tool_calls"] = {"id": "x"}
    not_a_number = tool_record(6)
    not_a_number["turns"][0]["tool_calls"][0]["arguments"] = '{"x": NaN}'  # not strict JSON
    path = write(
        tmp_path / "t.jsonl",
        [tool_record(0), not_json, no_name, result_text, bad_tools, calls_not_list, not_a_number],
    )
    result, rows = export(str(path))
    assert result.returncode == 0, result.stderr
    assert [row["messages"][1]["content"] for row in rows] == ["start 0"]
    for shown in (
        "episode 1: turn 2 call 1 arguments are not JSON",
        "episode 2: turn 1 call 2 name is 5, not a string",
        "episode 3: turn 1 result 1 content is None, not a string",
        "episode 4: tools is 'move', not a list",
        "episode 5: turn 1 tool_calls is {'id': 'x'}, not a list",
    ):
        assert shown in result.stderr
    assert "episode 6: turn 1 call 1 arguments are not JSON" in result.stderr
    assert "skipped 6: 4 not a conversation, 2 with tool arguments that are not a JSON object" in (
        result.stderr
    )
