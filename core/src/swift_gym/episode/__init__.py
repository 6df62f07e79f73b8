"""One episode of one env, with the rules every face shares.

`Episode` holds a live episode's chat, tools, turns and totals; `Reply` is the model's reply
read once; `checks` is the one check of a reset's and a step's result; `layout` the one layout
of the next messages; `records` the turn and episode records; `status` how an episode ended.
The ms-swift scheduler, `evaluate`, `play`, `serve` and the conformance kit drive it.
"""

from .checks import as_step_result, checked_reset, checked_step, reset_problems, step_problems
from .episode import (
    Episode,
    TotalOverflow,
    Turn,
    checked_context,
    play_turn,
    replaces_chat,
    rewritten_context,
    tools_of,
)
from .reply import Reply, ReplyShapeError

__all__ = [
    "Episode",
    "Reply",
    "ReplyShapeError",
    "TotalOverflow",
    "Turn",
    "as_step_result",
    "checked_context",
    "checked_reset",
    "checked_step",
    "play_turn",
    "replaces_chat",
    "reset_problems",
    "rewritten_context",
    "step_problems",
    "tools_of",
]
