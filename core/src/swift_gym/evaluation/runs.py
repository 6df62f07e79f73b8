"""Where a run's episodes are: a trajectory file (`swift-gym eval -o`), or a directory that
training filled with one file per process (SWIFT_GYM_TRAJECTORIES).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .errors import TrajectoryFileError


def trajectory_paths(path: Path | str, keep: Callable[[Path], bool] | None = None) -> list[Path]:
    """The files that hold `path`'s episodes: `path` itself, or a directory's `.jsonl` files by
    name (hidden ones, such as an output's temporary file, left out; `keep` may drop more).

    Raises `TrajectoryFileError` for a directory with no such file.
    """
    path = Path(path)
    if not path.is_dir():
        return [path]
    found = sorted(
        file
        for file in path.glob("*.jsonl")
        if file.is_file() and not file.name.startswith(".") and (keep is None or keep(file))
    )
    if not found:
        raise TrajectoryFileError(f"{path} holds no .jsonl file of episodes")
    return found
