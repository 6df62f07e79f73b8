"""A folder in the cache made once, by whichever process gets there first: built in a scratch
folder beside it and moved into place whole, so no reader ever sees a half-made one."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path


def made_once(root: Path, build: Callable[[Path], Path]) -> Path:
    """`root`, made if missing: `build(scratch)` fills an empty scratch folder and returns the
    folder (the scratch one or one inside it) to move to `root`. When another process moved
    its own there first, theirs is kept."""
    if root.is_dir():
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=root.parent, prefix=f".{root.name}-"))
    try:
        made = build(scratch)
        try:
            os.replace(made, root)
        except OSError:
            if not root.is_dir():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return root
