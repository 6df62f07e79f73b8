"""What the sandbox gets on this host, said before a run depends on it (`swift-gym doctor`).

Whether bubblewrap runs here, and which mode bounds each sandbox (`bounds.py`): the operator
reads here whether memory and tasks are bounded by cgroups or by refusals, and what code in the
sandbox may not call, without starting a run to find out.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..errors import SandboxUnavailableError


@dataclass(frozen=True)
class HostReport:
    """The sandbox on this host: `ok` when it can run code, else `problem` says what to fix."""

    ok: bool
    problem: str = ""
    bubblewrap: str = ""
    mode: str = ""
    detail: str = ""
    refused_calls: list[str] = field(default_factory=list)
    enforcement: dict[str, str] = field(default_factory=dict)
    root: bool = False


def host_report() -> HostReport:
    """Probe bubblewrap (cached per process) and the bounds this process would give sandboxes."""
    from .availability import bubblewrap
    from .bounds import bounds

    root = os.geteuid() == 0
    try:
        found = bubblewrap()
        plan = bounds()
    except (SandboxUnavailableError, ValueError) as error:
        return HostReport(False, str(error), root=root)
    return HostReport(
        True,
        bubblewrap=found.path,
        mode=plan.mode,
        detail=plan.describe(),
        refused_calls=plan.refused(),
        enforcement=plan.enforcement(),
        root=root,
    )
