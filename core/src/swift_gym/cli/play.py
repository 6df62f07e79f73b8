"""`swift-gym play`: a person plays an env in the terminal, seeing exactly what a model sees.

The system prompt and each observation are printed verbatim (no markup, no wrapping changes);
each input line is one reply, sent to the env as the assistant message. Input may be piped, so
a scripted game is a file of replies.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING, Any

import click
from rich.text import Text

from .console import stdout
from .episodes import parsed_action
from .options import parse_overrides, set_option
from .transcript import section, step_note

if TYPE_CHECKING:
    from ..env import Env, Message


@click.command()
@click.argument("name")
@set_option
@click.option("--seed", type=click.IntRange(min=0), help="The episode's seed (env_config.seed).")
@click.option(
    "--max-turns", type=click.IntRange(min=1), help="Stop after this many replies [default: none]."
)
def play(name: str, overrides: tuple[str, ...], seed: int | None, max_turns: int | None) -> None:
    """Play env NAME turn by turn: each line you type is the model's reply.

    End with Ctrl-D (end of input) or Ctrl-C. Your lines are sent as they are, so answer in
    the format the system prompt asks for (FrozenLake: <action>up</action>).
    """
    from ..registry import default_registry

    fields = parse_overrides(overrides, {"name": "the env is the NAME argument"})
    if seed is not None:
        fields["seed"] = seed
    env = default_registry().make({"name": name, **fields})
    asyncio.run(_play(env, max_turns))


def _read_reply() -> str | None:
    """The next input line without its newline; None at end of input or on Ctrl-C."""
    interactive = sys.stdin.isatty()
    try:
        if interactive:
            return stdout().input(Text("reply> ", style="bold cyan"))
        line = sys.stdin.readline()
    except (EOFError, KeyboardInterrupt):
        return None
    return line.removesuffix("\n").removesuffix("\r") if line else None


async def _play(env: Env, max_turns: int | None) -> None:
    out = stdout()
    observation, _info, system_prompt = await env.reset()
    if system_prompt:
        section("system", system_prompt)
    section("user", observation)
    messages: list[Message] = (
        [{"role": "system", "content": system_prompt}] if system_prompt else []
    )
    messages.append({"role": "user", "content": observation})
    turns, total, done = 0, 0.0, False
    info: dict[str, Any] = {}
    try:
        while not done and (max_turns is None or turns < max_turns):
            reply = _read_reply()
            if reply is None:
                break
            if not sys.stdin.isatty():
                section("assistant", reply)
            messages.append({"role": "assistant", "content": reply})
            observation, reward, done, info = await env.step(messages)
            messages.append({"role": "user", "content": observation})
            turns += 1
            total += reward
            step_note(reward, done, parsed_action(info), info)
            section("user", observation)
    finally:
        await env.close()
    if done:
        ending = f"episode over: status {info.get('status', 'done')}"
    else:
        ending = "stopped before the episode ended"
    out.print(Text(f"{ending}; {turns} turns, total reward {total:g}", style="bold"))
