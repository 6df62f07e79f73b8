"""How the `swift_gym` scheduler calls an env: within the step timeout, and closing it quietly.

`SWIFT_GYM_STEP_TIMEOUT` (seconds) bounds each reset and step; an env that takes longer ends its
own episode, as one that raises does. Closing a failed or finished env never fails the batch.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

logger = logging.getLogger("swift_gym")

TIMEOUT_VARIABLE = "SWIFT_GYM_STEP_TIMEOUT"


def step_timeout() -> float | None:
    """Seconds one reset or step may take, from SWIFT_GYM_STEP_TIMEOUT; None for no limit."""
    raw = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    try:
        value = float(raw) if raw else None
    except ValueError:
        logger.warning("swift-gym: ignoring %s=%r: not a number of seconds", TIMEOUT_VARIABLE, raw)
        return None
    return value if value and value > 0 else None


async def guarded(awaitable: Any, timeout: float | None) -> Any:
    """`await awaitable`, within `timeout` seconds when one is set."""
    if timeout is None:
        return await awaitable
    return await asyncio.wait_for(awaitable, timeout)


async def close_quietly(env: Any, timeout: float | None = None) -> None:
    """`env.close()` (None: nothing), within `timeout`; what it raises is only logged."""
    if env is None:
        return
    try:
        await asyncio.wait_for(env.close(), timeout)
    except Exception as error:  # closing a failed env must not fail the batch either
        logger.debug("swift-gym: closing a failed env raised %r", error)
