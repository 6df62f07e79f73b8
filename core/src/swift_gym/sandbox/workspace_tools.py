"""`WorkspaceTools`: the shell and file tools an env offers with a `Workspace`, and `submit`.

An env makes a `Workspace` (its source, its python paths, the operator's limits) and one
`WorkspaceTools` over it in `reset`, offers `tools.tools` (a checked `ToolSet`; `names=` picks a
subset), answers each call with `await tools.call(call)`, ends the episode once
`tools.submitted` is true, and closes the workspace in `close()`. Like `PythonTool`, a handler
never raises for what the model wrote: a bad argument, a missing file, a command that failed or
hit a limit are all results the model reads, under labels, bounded by the limits.

- `bash`: a command run with `bash -c` in `/work`; its output (stdout and stderr together) and
  exit code; nothing it starts outlives the call.
- `read_file`: a file's lines, numbered, optionally a range of them.
- `edit_file`: one exact occurrence of a text replaced by another (an error says how many times
  it matched when not once).
- `write_file`: a whole file, its folders made.
- `submit`: ends the episode (`tools.submitted`); the env then grades the tree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..tools.toolset import MAX_ARGUMENT_CHARS, ToolCall, ToolResult, ToolSet, function_tool
from .workspace import CommandResult, Workspace, WorkspaceError

NAMES = ("bash", "read_file", "edit_file", "write_file", "submit")
"""Every tool a `WorkspaceTools` can offer, in the order it lists them."""

_PATH = {"type": "string", "minLength": 1, "maxLength": 4096, "description": "A file path, "
         "relative to the work directory /work (or absolute)."}  # fmt: skip
_TEXT = {"type": "string", "maxLength": MAX_ARGUMENT_CHARS}
_LINE = {"type": "integer", "minimum": 1, "maximum": 10_000_000}


def _schemas() -> dict[str, dict[str, Any]]:
    read_file = function_tool(
        "read_file",
        "Read a text file of the work tree, with line numbers; optionally only lines "
        "start_line to end_line (from 1, both included).",
        {
            "path": _PATH,
            "start_line": {**_LINE, "description": "The first line to show (default 1)."},
            "end_line": {**_LINE, "description": "The last line to show (default: the end)."},
        },
    )
    read_file["function"]["parameters"]["required"] = ["path"]
    return {
        "bash": function_tool(
            "bash",
            "Run a shell command with bash in the work directory /work (no network; python, "
            "the standard library and the project's tools only). Returns its output (stdout "
            "and stderr together, long output cut in the middle) and its exit code. Each call "
            "has a time limit, and nothing it starts (background jobs, servers) outlives it.",
            {"command": {**_TEXT, "minLength": 1, "description": "The command line."}},
        ),
        "read_file": read_file,
        "edit_file": function_tool(
            "edit_file",
            "Replace exactly one occurrence of old_text in a file with new_text. old_text must "
            "match the file exactly (spaces and indentation included) and occur exactly once: "
            "include enough lines around the change to make it unique.",
            {
                "path": _PATH,
                "old_text": {**_TEXT, "minLength": 1, "description": "The exact text to replace."},
                "new_text": {**_TEXT, "description": "The text to put in its place."},
            },
        ),
        "write_file": function_tool(
            "write_file",
            "Write a whole file (created, or replaced), making its folders.",
            {"path": _PATH, "content": {**_TEXT, "description": "The file's whole content."}},
        ),
        "submit": function_tool(
            "submit",
            "Submit the work tree as it is now: ends the episode. Call it once the task is done.",
            {},
        ),
    }


class WorkspaceTools:
    """The tools of one episode's `Workspace`: their schemas, and a handler for each call."""

    def __init__(
        self,
        workspace: Workspace,
        *,
        names: Sequence[str] = NAMES,
        timeout: float | None = None,
    ):
        """`names`: the tools to offer (a subset of `NAMES`); `timeout`: each `bash` call's
        time limit (default: the workspace limits' `wall_seconds`)."""
        unknown = [name for name in names if name not in NAMES]
        if unknown or not names:
            raise ValueError(f"names must be some of {', '.join(NAMES)}; got {list(names)!r}")
        self.workspace = workspace
        self.timeout = timeout
        schemas = _schemas()
        self.names = tuple(name for name in NAMES if name in names)
        self.tools = ToolSet([schemas[name] for name in self.names], "the workspace tools")
        """The offered tools as a checked ToolSet, for `Env.tools()`."""
        self.submitted = False
        """True once the model called `submit`: the env ends the episode and grades the tree."""
        self.last_command: CommandResult | None = None
        """The last `bash` call's raw result, for envs that read it."""

    def schemas(self) -> list[dict[str, Any]]:
        """The tools' OpenAI function-tool schemas (fresh copies), to list among an env's."""
        return self.tools.copy()

    async def call(self, call: ToolCall) -> ToolResult:
        """Answer one call. Never raises for what the model wrote or what its command did;
        raises SandboxUnavailableError when the sandbox cannot run here (the operator's)."""
        checked = self.tools.check(call)
        if isinstance(checked, ToolResult):
            return checked
        try:
            return ToolResult.for_call(call, await self._answer(call.name, checked))
        except WorkspaceError as error:
            return ToolResult.error(call, str(error))

    async def _answer(self, name: str, arguments: dict[str, Any]) -> str:
        workspace = self.workspace
        if name == "bash":
            result = await workspace.run(arguments["command"], self.timeout)
            self.last_command = result
            return format_command(result)
        if name == "read_file":
            start, end = arguments.get("start_line"), arguments.get("end_line")
            if start is not None and end is not None and end < start:
                raise WorkspaceError(f"end_line {end} is before start_line {start}")
            found = await workspace.read_file(
                arguments["path"], None if start is None else int(start), _int(end)
            )
            return format_lines(found.text, found.first_line, found.total_lines, found.truncated)
        if name == "edit_file":
            line = await workspace.edit_file(
                arguments["path"], arguments["old_text"], arguments["new_text"]
            )
            return f"Edited {arguments['path']}: replaced 1 occurrence (from line {line})."
        if name == "write_file":
            content = arguments["content"]
            await workspace.write_file(arguments["path"], content)
            lines = content.count("\n") + (not content.endswith("\n") and bool(content))
            return f"Wrote {arguments['path']} ({lines} lines, {len(content):,} characters)."
        self.submitted = True
        return "Submitted. The episode ends now."

    async def close(self) -> None:
        """Close the workspace (all its processes). Safe to call more than once."""
        await self.workspace.close()


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def format_command(result: CommandResult) -> str:
    """The text the model reads for a `bash` call."""
    parts = [result.output.rstrip("\n") if result.output else "(no output)"]
    if result.truncated:
        parts.append("(output cut: its middle was left out)")
    if result.ended:
        parts.append("error: the workspace has ended; no further command can run.")
    elif result.limit:
        parts.append(f"(stopped: the {result.limit} limit was reached)")
    else:
        parts.append(f"exit code: {result.exit_code}")
    return "\n".join(parts)


def format_lines(text: str, first: int, total: int, truncated: bool) -> str:
    """Lines with their numbers (`cat -n` style), and what was left out."""
    if total == 0:
        return "(empty file)"
    if not text:
        return f"(no lines there: the file has {total} lines)"
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    width = len(str(first + len(lines) - 1))
    shown = [f"{number:>{width}}\t{line}" for number, line in enumerate(lines, first)]
    last = first + len(lines) - 1
    if truncated:
        shown.append(f"(cut at the output limit; read from line {last} on to see more)")
    elif last < total or first > 1:
        shown.append(f"(lines {first}-{last} of {total})")
    return "\n".join(shown)
