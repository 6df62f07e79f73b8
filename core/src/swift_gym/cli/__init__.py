"""The `swift-gym` command: inspect envs, check and make datasets, play, evaluate, replay.

Imported only by the command (`swift-gym`, `python -m swift_gym`), never by `import swift_gym`,
so click, rich and httpx cost nothing to library users. Exit codes: 0 ok, 1 problems found (bad
rows, failed episodes, broken plugins), 2 usage errors (bad options, unknown env, bad config).
"""

from __future__ import annotations


def main() -> None:
    """Entry point of the `swift-gym` script."""
    from .app import cli

    cli(prog_name="swift-gym")
