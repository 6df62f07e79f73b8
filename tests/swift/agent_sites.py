"""A distribution made in a test's folder: an example's agent program, subclassed to write
`start SEED` when it starts and `end SEED` in its `finally`, so a test reads, after a run, that
every program it cut off finished its cleanup."""

from __future__ import annotations

from pathlib import Path

MARKED = '''
import os

from {module} import {base}


class MarkedAgent({base}):
    """The example's program, writing `start SEED` when it starts and `end SEED` in finally."""

    async def run(self, client):
        with open(os.environ["AGENT_MARKS"], "a") as marks:
            marks.write(f"start {{self.config.seed}}\\n")
        try:
            return await super().run(client)
        finally:
            with open(os.environ["AGENT_MARKS"], "a") as marks:
                marks.write(f"end {{self.config.seed}}\\n")
'''


def marked_site(root: Path, name: str, module: str, base: str) -> Path:
    """A folder for PYTHONPATH holding a distribution that registers the env `name` =
    `{name}_program:MarkedAgent`, a subclass of `module.base` that writes to $AGENT_MARKS."""
    site = root / "site"
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[swift_gym.envs]\n{name} = {name}_program:MarkedAgent\n"
    )
    (site / f"{name}_program.py").write_text(MARKED.format(module=module, base=base))
    return site
