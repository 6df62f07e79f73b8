"""The `swift-gym` command: inspect envs, check and make datasets, play, evaluate, replay.

Commands and views only (click commands, rich tables, progress bars, the HTML report): the work
is the library's (`swift_gym.evaluation`, `swift_gym.rows`, the registry), which raises
`SwiftGymError`s that `cli.errors.from_library` turns into exit codes. Signals are the
command's: `app.run` turns SIGTERM into an exit, `eval_run` turns both into a run's `Stop`.

Imported only by the command (`swift-gym`, `python -m swift_gym`), never by `import swift_gym`,
so click, rich and httpx cost nothing to library users. Exit codes: 0 ok, 1 problems found (bad
rows, failed episodes, broken plugins), 2 usage errors (bad options, unknown env, bad config),
130 Ctrl-C, 143 SIGTERM; a closed stdout pipe ends a command quietly with 0 (see `app.run`).
"""

from __future__ import annotations


def main() -> None:
    """Entry point of the `swift-gym` script."""
    try:
        from .app import run
    except KeyboardInterrupt:  # Ctrl-C while the command loads: quietly, like any other time
        raise SystemExit(130) from None
    run()
