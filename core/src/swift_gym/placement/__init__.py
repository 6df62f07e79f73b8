"""Where an episode's env lives, and the event loops that hold it.

One room, below every face that plays envs (`serving`, `evaluation`, `ms_swift`) and every env
that keeps something alive between calls (`remote`, `agent`, `mcp`); it imports none of them.
Bottom up:

- `worker`: a thread with its own event loop (`EnvWorker`), and the cheap hop to it.
- `background`: the one background loop per process, where every `openenv` socket, agent
  program and MCP session lives, whichever loop the caller runs on.
- `runners`: where one env's calls run in this process, behind one interface (`Runner`):
  inline on the caller's loop, its own thread, or a shared one; `Isolation` makes them as
  `swift-gym serve --isolation` says.
- `ray`: envs played inside Ray actors on a cluster (each actor plays its episodes on runners).
- `choice`: where an episode's env is built, as the operator chose (`Placement`): this process,
  or a Ray cluster (`process_placement` for the `swift_gym` scheduler, `placement_for` for
  `evaluate`).
"""

from __future__ import annotations

from ..lazy import attach

ISOLATIONS = ("auto", "thread", "shared", "inline")
"""Where serve's envs run: `auto` (the default) picks per env; then the forms, safest first
(`runners` says what each trades)."""

_EXPORTS = {
    "Isolation": "runners",
    "Runner": "runners",
    "Placement": "choice",
    "placement_for": "choice",
    "process_placement": "choice",
}
__all__ = ["ISOLATIONS", "Isolation", "Placement", "Runner", "placement_for", "process_placement"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .choice import Placement, placement_for, process_placement
    from .runners import Isolation, Runner

__getattr__, __dir__ = attach(__name__, _EXPORTS, __all__)
