"""`ServeOptions`: everything `swift-gym serve` can be told, with the defaults and bounds."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..placement import ISOLATIONS

MiB = 1 << 20
DEFAULT_PORT = 8100
"""Not 8000: that is where `swift deploy`, vLLM and `swift-gym eval --policy openai` look for
the model, often on the same machine."""


@dataclass(frozen=True)
class ServeOptions:
    """How to serve envs over the OpenEnv protocol. Raises ValueError on a value out of range."""

    env: str | None = None
    """The env a reset plays when its env_config names none (`swift-gym serve NAME`)."""
    defaults: Mapping[str, Any] = field(default_factory=dict)
    """Fields of the default env's env_config (`--set`), under each reset's own."""
    allow: tuple[str, ...] = ()
    """Names a reset may give (the default env always may); empty: any installed env."""
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    """0: any free port (the ready line says which)."""
    max_sessions: int = 256
    idle_timeout: float = 600.0
    """Seconds without a frame after which a session is closed, its env with it."""
    step_timeout: float = 60.0
    """Seconds a reset (building the env included), step or close may take."""
    handshake_timeout: float = 10.0
    """Seconds a connection may stay silent before it is a WebSocket (or between its HTTP
    requests) before it is closed."""
    keepalive: float = 20.0
    """Seconds between WebSocket pings, and how long a pong may take before the connection is
    closed as dead."""
    max_message_bytes: int = MiB
    token: str | None = None
    """Bearer token every request but `GET /health` must carry; None: no token needed."""
    isolation: str = "auto"
    """Where envs run: `auto` (inline for envs that declare `never_blocks`, a thread per session
    for the rest), `thread`, `shared` or `inline` for every env (see `placement.runners`)."""
    oracle: bool = True
    """Whether a client may ask for the oracle reply of an env that defines one (`Env.oracle_reply`:
    `swift-gym eval --policy oracle` through the server); False keeps a benchmark's answers on
    the server (`--no-oracle`)."""

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port must be 0..65535, not {self.port}")
        if self.max_sessions < 1:
            raise ValueError("max_sessions must be at least 1")
        for name in ("idle_timeout", "step_timeout", "handshake_timeout", "keepalive"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be a positive number of seconds")
        if self.max_message_bytes < 1024:
            raise ValueError("max_message_bytes must be at least 1024")
        if self.token is not None and not self.token.strip():
            raise ValueError("the token is empty")
        if self.isolation not in ISOLATIONS:
            raise ValueError(
                f"isolation must be one of {', '.join(ISOLATIONS)}, not {self.isolation!r}"
            )
        if self.defaults and self.env is None:
            raise ValueError("defaults (--set) need a default env (NAME)")

    @property
    def loopback(self) -> bool:
        """Whether only this machine can connect."""
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False
