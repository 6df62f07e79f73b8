"""Reading a sandbox's output without ever holding more than the cap."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class BoundedOutput:
    """Keeps the first `cap` bytes read from a stream; counts the rest; calls `on_overflow`
    once when the cap is passed (a one-shot run kills the sandbox then: the flood stops)."""

    def __init__(self, cap: int, on_overflow: Callable[[], None] | None = None):
        self.cap = cap
        self.kept = bytearray()
        self.cut = False
        self._on_overflow = on_overflow

    async def drain(self, stream: asyncio.StreamReader) -> None:
        """Read `stream` to its end."""
        while chunk := await stream.read(65_536):
            self.add(chunk)

    def add(self, chunk: bytes) -> None:
        room = self.cap - len(self.kept)
        if room > 0:
            self.kept += chunk[:room]
        if len(chunk) > room:
            if not self.cut and self._on_overflow is not None:
                self._on_overflow()
            self.cut = True

    def take(self) -> tuple[str, bool]:
        """The text kept so far and whether any was cut; starts afresh (a session's next call)."""
        text, cut = self.text(), self.cut
        self.kept.clear()
        self.cut = False
        return text, cut

    def text(self) -> str:
        return self.kept.decode("utf-8", "replace")
