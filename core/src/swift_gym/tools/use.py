"""Whether an env gives the model tools: declared, so that listing can tell without importing.

An env says it where its name is registered: `register(name, env, tool_use="opt-in")` in a
hook plugin, or, for a `swift_gym.envs` entry point (which has no room for it), a literal in its
class's own body (`tool_use = "opt-in"`, read from the source as its description is, never
imported). `EnvSpec.tool_use` is the one answer: `swift-gym list` (its tools column and
`--tools`) and the env catalogue (benchmarks/catalogue.py, docs/envs/catalogue.md) both read it.

What an env offers is decided per episode (`Env.tools()` after `reset`), often by its config
(FrozenLake's `action_format: tool`), so a declaration says which of `TOOL_USES` holds for the
env; tests/collections checks each shipped env's against what its episodes offer.
"""

from __future__ import annotations

from ..errors import short_repr

TOOL_USES: dict[str, str] = {
    "always": "offers tools in every episode",
    "opt-in": "offers tools when its config asks for them; a text env otherwise",
    "varies": "offers whatever the env or program it plays offers (a served env, an agent)",
    "no": "a text env: offers no tools",
}
"""Each value a declaration may take, with what it means."""
TAKES_TOOLS = frozenset({"always", "opt-in", "varies"})
"""The values of an env that may take tool calls (`swift-gym list --tools` lists those)."""
UNDECLARED = "?"
"""How `swift-gym list` and the catalogue show an env that declares none."""


def problem(value: object) -> str | None:
    """What is wrong with a declared `tool_use`, or None when it is valid (or not given)."""
    if value is None or value in TOOL_USES:
        return None
    choices = ", ".join(repr(use) for use in TOOL_USES)
    return f"tool_use={short_repr(value, 60)}: use one of {choices}"
