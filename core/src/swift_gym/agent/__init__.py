"""Agent programs as envs: `AgentEnv` plays a program that owns its loop and calls a model.

`run(client)` gets a real `openai.AsyncOpenAI` whose requests never leave the process: an
in-memory transport (`transport`) hands each `chat.completions.create` to the episode, whose
`step` answers it with the policy's reply (`env`); the client (`client`) refuses the SDK's
ways around that transport (the Realtime API's websocket, another HTTP client), and a call
from a thread's own event loop is answered on the episode's (`bridge`). `context` reads what
a call sent; `result` is what the program returns. openai and httpx are imported only when an
episode starts.
"""

from __future__ import annotations

from ..lazy import attach

_EXPORTS = {"AgentEnv": "env", "AgentResult": "result", "AgentProgramError": "result"}
__all__ = ["AgentEnv", "AgentProgramError", "AgentResult"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .env import AgentEnv
    from .result import AgentProgramError, AgentResult

__getattr__, __dir__ = attach(__name__, _EXPORTS, __all__)
