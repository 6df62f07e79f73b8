"""`swift-gym play`: a person plays an env in the terminal, seeing exactly what a model sees.

The system prompt and each observation are printed as the model reads them (made visible: see
`visible`); each input line is one reply, sent to the env as the assistant message. On a
terminal, input has line editing and history (stdlib `readline`: arrow keys move in the line
and recall earlier replies, so they are never sent as replies); Ctrl-D and Ctrl-C end the
session at once with its summary, Ctrl-C with exit code 130. Input may be piped, so a scripted
game is a file of replies; piped replies are echoed, escaped. Without a seed (`--seed` or
`--set seed=`) the command draws one and prints it first, so the game can be played again.

An env that offers tools shows them first; a line `/call NAME ARGUMENTS` then makes a tool call
(`call_lines`), sent as the assistant message with `tool_calls`, and each result is shown and
sent back as a `tool` message, as evaluation does.
"""

from __future__ import annotations

import asyncio
import random
import re
import sys
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import click
from rich.text import Text

from ..episode import Episode, Reply, play_turn, rewritten_context
from ..episode.status import parsed_action
from ..tools.toolset import offered_tools
from ..tools.turns import call_record
from . import visible
from .call_lines import HELP, CallLineError, help_text, is_help, typed_reply
from .console import stdout
from .errors import EXIT_INTERRUPTED, EXIT_OK, EXIT_PROBLEMS
from .options import parse_overrides, set_option
from .transcript import call_lines, plural, result_sections, section, step_note, tools_section

if TYPE_CHECKING:
    from ..env import Env

"""Ctrl-C: 128 + SIGINT, as shells report a command a signal stopped."""
PROMPT = Text("reply> ", style="bold cyan")
DRAWN_SEEDS = 2**32
"""Seeds `play` draws from when given none: any of them replays with `--seed`."""

T = TypeVar("T")


@dataclass
class Session:
    """What a summary says: turns played, reward so far, the env's last status, why it ended."""

    turns: int = 0
    total: float = 0.0
    status: Any = None
    ending: str = "end of input"


@click.command()
@click.argument("name")
@set_option
@click.option("--seed", type=click.IntRange(min=0), help="The episode's seed (env_config.seed).")
@click.option(
    "--max-turns", type=click.IntRange(min=1), help="Stop after this many replies [default: none]."
)
def play(name: str, overrides: tuple[str, ...], seed: int | None, max_turns: int | None) -> None:
    """Play env NAME turn by turn: each line you type is the model's reply.

    Your lines are sent as they are, so answer in the format the system prompt asks for
    (FrozenLake: <action>up</action>). Arrow keys edit the line and recall earlier replies.
    Ctrl-D ends the session, Ctrl-C too (exit code 130), each with a summary.

    An env that offers tools lists them first; then a line /call NAME ARGUMENTS calls one,
    e.g. /call move {"direction": "up"} (arguments sent exactly as typed); //call sends the
    text /call. A line /help shows how to reply and spends no turn; //help sends the text
    /help.
    """
    from ..registry import default_registry

    fields = parse_overrides(overrides, {"name": "the env is the NAME argument"})
    if seed is not None:
        fields["seed"] = seed
    drawn = "seed" not in fields
    if drawn:
        fields["seed"] = random.randrange(DRAWN_SEEDS)
    env = default_registry().make({"name": name, **fields})
    if drawn:
        again = f"play this episode again with --seed {fields['seed']}"
        stdout().print(f"seed {fields['seed']} (drawn: {again})", markup=False)
    session = Session()
    loop = asyncio.new_event_loop()
    try:
        try:
            _play(env, loop, max_turns, session)
        except KeyboardInterrupt:
            stdout().print()  # the summary starts on a line of its own, after the ^C
            session.ending = "interrupted"
        except _Stop:
            pass
        stdout().print(visible.rich(summary(session), style="bold"))
    finally:
        _close(env, loop)
    code = {"interrupted": EXIT_INTERRUPTED, "env error": EXIT_PROBLEMS}
    sys.exit(code.get(session.ending, EXIT_OK))


def summary(session: Session) -> str:
    """`episode over: status goal; 3 turns, total reward 1`, or why it stopped before that."""
    played = f"{plural(session.turns, 'turn')}, total reward {session.total:g}"
    if session.ending == "done":
        return f"episode over: status {visible.brief(session.status)}; {played}"
    why = {
        "end of input": "stopped before the episode ended (end of input)",
        "max turns": "stopped at --max-turns before the episode ended",
        "interrupted": "interrupted before the episode ended",
        "env error": "stopped by an env error",
    }[session.ending]
    last = f", last status {visible.brief(session.status)}" if session.status is not None else ""
    return f"{why}: {played}{last}"


def _play(
    env: Env, loop: asyncio.AbstractEventLoop, max_turns: int | None, session: Session
) -> None:
    """The session's turns, updating `session` as they go (so Ctrl-C finds it current)."""
    episode = Episode()
    reset = _run(loop, env.reset(), session)
    offered = _guarded(lambda: offered_tools(env), session)
    tools = list(offered)
    _guarded(lambda: episode.open(reset, offered, rewritten_context(env)), session)
    if episode.system_prompt:
        section("system", episode.system_prompt)
    names = [_tool_name(tool) for tool in tools]
    if tools:
        tools_section(tools)
        _say_help(names)
    section("user", episode.observation)
    echo = not sys.stdin.isatty()
    calls_made = 0
    for line in read_replies():
        if is_help(line):
            _say_help(names)
            continue
        if line.strip() == "/" + HELP:
            line = HELP
        try:
            reply = Reply.of(typed_reply(line, f"call_{calls_made + 1}") if tools else line)
        except CallLineError as error:
            stdout().print(Text.assemble(("error: ", "bold red"), visible.rich(str(error))))
            continue
        calls_made += len(reply.calls)
        if echo and reply.calls:
            call_lines([call_record(call) for call in reply.calls])
        elif echo:
            section("assistant", reply.text)
        turn = _run(loop, play_turn(episode, env, reply), session)
        step = turn.step
        session.turns += 1
        session.total = episode.total_reward
        session.status = step.info.get("status", "done" if step.done else None)
        step_note(step.reward, step.done, parsed_action(step.info), step.info)
        result_sections([vars(r) for r in turn.results])
        if step.observation or not tools:  # with tools, an empty observation is no message
            section("user", step.observation)
        if step.done:
            session.ending = "done"
            return
        if max_turns is not None and session.turns >= max_turns:
            session.ending = "max turns"
            return


def _say_help(tool_names: list[str]) -> None:
    stdout().print(visible.rich(help_text(tool_names), style="dim"))


def _tool_name(tool: Any) -> str:
    function = tool.get("function") if isinstance(tool, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    return visible.brief(name, 64) if isinstance(name, str) else "NAME"


def _run(loop: asyncio.AbstractEventLoop, step: Coroutine[Any, Any, T], session: Session) -> T:
    """Run one of the env's coroutines; an env that raises ends the session, saying why."""
    return _guarded(lambda: loop.run_until_complete(step), session)


def _guarded(work: Callable[[], T], session: Session) -> T:
    """`work()`; an env that raises (or breaks the tool contract) ends the session, saying
    why."""
    try:
        return work()
    except Exception as error:
        session.ending = "env error"
        reason = visible.brief(f"{type(error).__name__}: {error}", 2000)
        stdout().print(Text.assemble(("error: the env failed: ", "bold red"), visible.rich(reason)))
        raise _Stop from None


class _Stop(Exception):
    """The env failed; its error is shown, the session ends with its summary."""


def read_replies() -> Iterator[str]:
    """Each reply: a typed line (with line editing) on a terminal, else a line of the pipe.

    Ends at end of input (Ctrl-D); Ctrl-C raises KeyboardInterrupt to the caller. Bytes that
    are not UTF-8 become U+FFFD rather than stopping the session.
    """
    reconfigure = getattr(sys.stdin, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="replace")
    if sys.stdin.isatty():
        yield from _typed_replies()
        return
    while line := sys.stdin.readline():
        yield line.removesuffix("\n").removesuffix("\r")


def _typed_replies() -> Iterator[str]:
    readline: Any
    try:
        import readline  # gives input() line editing and history; absent on some platforms
    except ImportError:
        readline = None
    if readline is not None and "libedit" not in (readline.__doc__ or ""):
        readline.parse_and_bind("tab: tab-insert")  # a tab is text, not a file-name completion
    prompt = _prompt(for_readline=readline is not None)
    while True:
        try:
            yield input(prompt)
        except EOFError:  # Ctrl-D
            stdout().print()
            return


def _prompt(for_readline: bool) -> str:
    """`reply> `, in colour when stdout has colours; colour codes wrapped in readline's
    invisible-text markers (\\001, \\002) so it measures the prompt right when editing."""
    out = stdout()
    with out.capture() as captured:
        out.print(PROMPT, end="")
    prompt = captured.get()
    return re.sub(r"(\x1b\[[0-9;]*m)", "\001\\1\002", prompt) if for_readline else prompt


def _close(env: Env, loop: asyncio.AbstractEventLoop) -> None:
    """Close the env, then the loop with whatever an interrupted step left running."""
    try:
        loop.run_until_complete(env.close())
    except KeyboardInterrupt:  # a second Ctrl-C: the summary is out, leave now
        pass
    finally:
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.close()
