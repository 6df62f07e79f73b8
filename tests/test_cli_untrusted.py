"""What a model, a dataset or an env package wrote reaches terminals and pages visibly escaped.

Each test runs the installed command in a new process on a trajectory file (or piped replies)
holding escape sequences, C0 and C1 controls, bidi overrides, zero-width characters, lone
surrogates, rich markup and blank replies, and reads the raw bytes it wrote.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from cli_runner import SCRIPT

from swift_gym.report.episode_browser import SCRIPT as PAGE_SCRIPT

# Everything a terminal or a browser would act on, or show as nothing.
REPLY = "\x1b[2J\x1b]0;pwned\x07\x04\x9b31m\u202egnp.exe\u200b[bold red]markup[/bold red]"
SHOWN = r"\x1b[2J\x1b]0;pwned\x07\x04\x9b31m\u202egnp.exe\u200b[bold red]markup[/bold red]"
INJECTION = '</title><script>alert(1)</script><img src=x onerror="alert(2)">'
HIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def turn(number: int, reply: str, **extra: object) -> dict[str, object]:
    return {
        "turn": number,
        "reply": reply,
        "action": None,
        "valid_action": False,
        "observation": f"observation {number}\x1b[5m",
        "reward": 0.0,
        "done": False,
        "info": {"status": "invalid_action", "note": "\x1b]0;info\x07"},
        **extra,
    }


def hostile_record(index: int = 0, **extra: object) -> dict[str, object]:
    turns = [
        turn(1, REPLY),
        turn(2, "   "),
        turn(3, ""),
        turn(4, "line one\n\tindented\nline \ud800 three"),
        turn(5, " \n\t"),
    ]
    return {
        "index": index,
        "env": "frozen_lake\x1b[31m",
        "seed": 0,
        "env_config": {"name": "frozen_lake", "seed": 0},
        "policy": "openai \x1b]0;policy\x07",
        "system_prompt": "system prompt \x1b]0;title\x07 \u202eend",
        "observation": "first observation \x1b[2J",
        "reset_info": {},
        "turns": turns,
        "num_turns": len(turns),
        "total_reward": 0.0,
        "success": False,
        "status": "max_turns\x1b[2J",
        "error": "boom \x1b[2J [red]no markup[/red]",
        **extra,
    }


def write_records(path: Path, records: list[dict[str, object]]) -> Path:
    # json.dumps escapes the lone surrogate as \ud800, which json.loads reads back as one.
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def run_bytes(*args: str, stdin: bytes = b"", colour: bool = False) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
    env.pop("NO_COLOR", None)
    env.pop("FORCE_COLOR", None)
    env.update({"COLUMNS": "200", **({"FORCE_COLOR": "1"} if colour else {"NO_COLOR": "1"})})
    return subprocess.run(
        [str(SCRIPT), *args], input=stdin, capture_output=True, env=env, timeout=300
    )


def assert_nothing_hidden(text: str) -> None:
    found = HIDDEN.search(text) or re.search(r"[\ud800-\udfff]", text)
    assert found is None, (
        f"raw {found.group()!r} at {found.start()}: {text[found.start() - 40 :][:80]!r}"
    )


@pytest.fixture()
def hostile(tmp_path: Path) -> Path:
    return write_records(tmp_path / "hostile.jsonl", [hostile_record()])


def test_replay_shows_controls_escapes_and_markup_as_text(hostile: Path) -> None:
    result = run_bytes("replay", str(hostile))
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    out = result.stdout.decode("utf-8")
    assert_nothing_hidden(out)
    assert SHOWN in out
    assert r"system prompt \x1b]0;title\x07 \u202eend" in out
    assert r"first observation \x1b[2J" in out
    assert r"observation 1\x1b[5m" in out
    assert r"frozen_lake\x1b[31m" in out  # the env name in the headline
    assert r"boom \x1b[2J [red]no markup[/red]" in out
    assert r"note=\x1b]0;info\x07" in out  # info values too


def test_replay_makes_blank_replies_visible_and_keeps_lines_readable(hostile: Path) -> None:
    out = run_bytes("replay", str(hostile)).stdout.decode("utf-8")
    assert "(3 spaces)" in out
    assert "(empty)" in out
    assert r'(whitespace only: " \n\t")' in out
    assert re.search(r"line one\n\s+indented\nline \\ud800 three\n", out)


def test_replay_with_colours_writes_only_its_own_colour_codes(hostile: Path) -> None:
    result = run_bytes("replay", str(hostile), colour=True)
    assert result.returncode == 0
    out = result.stdout.decode("utf-8")
    assert "\x1b[" in out  # colours are on
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert_nothing_hidden(plain)
    assert SHOWN in plain
    # the escapes (only they: not the "[2J" after one) are styled dim (SGR 2)
    assert re.search(r"\x1b\[(?:[0-9;]*;)?2(?:;[0-9;]*)?m\\x1b\x1b\[0m[^\x1b]*\[2J", out)


def test_replay_list_escapes_every_cell(tmp_path: Path) -> None:
    path = write_records(tmp_path / "t.jsonl", [hostile_record()])
    result = run_bytes("replay", str(path), "--list")
    assert result.returncode == 0
    out = result.stdout.decode("utf-8")
    assert_nothing_hidden(out)
    assert r"max_turns\x1b[2J" in out


def test_play_echoes_piped_replies_escaped() -> None:
    replies = "hi \x1b[2J\x1b]0;pwned\x07 [bold]x[/bold] \u202e\n   \n\n<action>up</action>\n"
    result = run_bytes("play", "frozen_lake", "--seed", "0", stdin=replies.encode())
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    out = result.stdout.decode("utf-8")
    assert_nothing_hidden(out)
    assert r"hi \x1b[2J\x1b]0;pwned\x07 [bold]x[/bold] \u202e" in out
    assert "(3 spaces)" in out
    assert "(empty)" in out


def test_play_reads_replies_that_are_not_utf8() -> None:
    result = run_bytes("play", "frozen_lake", "--seed", "0", stdin=b"caf\xe9 <action>up</action>\n")
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    assert "You moved up." in result.stdout.decode("utf-8")


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: set[str] = set()
        self.links: list[str | None] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self.in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes.update(name for name, _ in attrs)
        self.links += [value for name, value in attrs if name == "href"]
        self.in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self.in_script = False

    def handle_data(self, data: str) -> None:
        if self.in_script:
            self.scripts.append(data)
        else:
            self.text.append(data)


def test_report_escapes_html_and_shows_controls(tmp_path: Path) -> None:
    records = [
        hostile_record(0, env=INJECTION, policy=INJECTION + "\x1b[2J"),
        hostile_record(1, seed="x\x1b[2J", status=INJECTION + "\u202e\ud800"),
        hostile_record(2, seed=3),
    ]
    path = write_records(tmp_path / "t.jsonl", records)
    out = tmp_path / "report.html"
    result = run_bytes("report", str(path), "-o", str(out))
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    html = out.read_bytes().decode("utf-8")  # strict: no lone surrogate reached the file
    assert_nothing_hidden(html.replace("\n", ""))
    parser = Tags()
    parser.feed(html)
    assert parser.tags <= {
        "html", "head", "meta", "title", "style", "body", "h1", "h2", "h4", "p", "b", "br",
        "table", "tr", "th", "td", "div", "span", "pre", "details", "summary", "label",
        "select", "option", "script", "svg", "text", "line", "rect", "g", "a",
    }  # fmt: skip
    assert not {a for a in parser.attributes if a.startswith("on") or a == "src"}
    ids = re.findall(r' id="([^"]*)"', html)
    assert parser.links and all(
        link and link[0] == "#" and link[1:] in ids for link in parser.links
    )
    assert parser.scripts == [PAGE_SCRIPT]  # the page's own filter, and nothing from the data
    text = "".join(parser.text)
    assert INJECTION in text  # shown as text, not as tags
    assert r"max_turns\x1b[2J" in text
    assert r"\u202e\ud800" in text
    assert r"x\x1b[2J" in text  # a seed that is not a number
    assert SHOWN in text  # the episode browser: replies, prompts, observations and infos too
    assert r"system prompt \x1b]0;title\x07 \u202eend" in text
    assert r"observation 1\x1b[5m" in text
    assert r'note:"\x1b]0;info\x07"' in text
    assert "(3 spaces)" in text and "(empty)" in text


def test_error_messages_show_the_data_they_quote_escaped(tmp_path: Path) -> None:
    path = tmp_path / "bad\x1b]0;pwned\x07.jsonl"  # a file name is data too
    path.write_text("\n")
    result = run_bytes("replay", str(path))
    assert result.returncode == 2
    err = result.stderr.decode("utf-8")
    assert_nothing_hidden(err)
    assert r"bad\x1b]0;pwned\x07.jsonl holds no episodes" in err


def hostile_tool_record(index: int = 0) -> dict[str, object]:
    """A tool episode whose tool names, ids, arguments, results and schemas attack."""
    record = hostile_record(index)
    record["tools"] = [
        {
            "type": "function",
            "function": {
                "name": "tool" + REPLY,
                "description": "describes" + REPLY + INJECTION,
                "parameters": {"type": "object", "properties": {"x" + REPLY: {}}},
            },
        }
    ]
    record["turns"][0]["tool_calls"] = [
        {"id": "id" + INJECTION, "name": "name" + REPLY, "arguments": "args" + REPLY + "\ud800"},
    ]
    record["turns"][0]["tool_results"] = [
        {"tool_call_id": "id" + INJECTION, "name": INJECTION, "content": "result" + REPLY},
    ]
    return record


def test_replay_shows_hostile_tool_calls_escaped(tmp_path: Path) -> None:
    path = write_records(tmp_path / "t.jsonl", [hostile_tool_record()])
    result = run_bytes("replay", str(path))
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    out = result.stdout.decode("utf-8")
    assert_nothing_hidden(out)
    assert "tool" + SHOWN in out  # the offered tool's name
    assert "describes" + SHOWN + INJECTION in out
    assert "name" + SHOWN in out and "args" + SHOWN + r"\ud800" in out  # the call
    assert "result" + SHOWN in out  # the result
    assert f"tool {INJECTION} (id{INJECTION})" in out


def test_report_shows_hostile_tool_calls_as_text(tmp_path: Path) -> None:
    path = write_records(tmp_path / "t.jsonl", [hostile_tool_record(0), hostile_record(1)])
    out = tmp_path / "report.html"
    result = run_bytes("report", str(path), "-o", str(out))
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    html = out.read_bytes().decode("utf-8")
    assert_nothing_hidden(html.replace("\n", ""))
    parser = Tags()
    parser.feed(html)
    assert "img" not in parser.tags and parser.scripts == [PAGE_SCRIPT]
    assert not {a for a in parser.attributes if a.startswith("on") or a == "src"}
    text = "".join(parser.text)
    assert "tool" + SHOWN in text and "describes" + SHOWN + INJECTION in text
    assert "name" + SHOWN in text and "args" + SHOWN + r"\ud800" in text
    assert "result" + SHOWN in text and "id" + INJECTION in text
