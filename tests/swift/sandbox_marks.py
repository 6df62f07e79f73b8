"""Marked bubblewrap, to find every process of a test's sandboxes in /proc and no one else's.

`marked_bwrap(folder, bwrap, mark)` writes a script to name in `SWIFT_GYM_BWRAP`: it logs each
sandbox start and puts `MARK=mark` in bubblewrap's environment and, after bubblewrap's
`--clearenv`, in the sandbox's (which every process started inside inherits). `marked(mark)`
lists the processes of the machine whose environment holds the mark.
"""

from __future__ import annotations

import os
from pathlib import Path

MARK = "SWIFT_GYM_TEST_SANDBOX_MARK"


def marked_bwrap(folder: Path, bwrap: str, mark: str) -> tuple[Path, Path]:
    """(the script, the log it appends `sandbox` to at each sandbox start)."""
    log = folder / "bwrap-starts.log"
    log.touch()
    script = folder / "bwrap-marked"
    script.write_text(
        "#!/bin/sh\n"  # bubblewrap is started with an empty environment: absolute paths only
        f'case " $* " in *" repl "*|*" run "*) echo sandbox >> "{log}" ;; esac\n'
        'marked=""\n'
        'for arg in "$@"; do\n'
        "  shift\n"
        '  if [ "$arg" = "--" ] && [ -z "$marked" ]; then\n'
        f'    set -- "$@" --setenv {MARK} {mark} --; marked=1\n'
        "  else\n"
        '    set -- "$@" "$arg"\n'
        "  fi\n"
        "done\n"
        f'exec /usr/bin/env {MARK}={mark} "{bwrap}" "$@"\n'
    )
    script.chmod(0o755)
    return script, log


def marked(mark: str, variable: str = MARK) -> list[int]:
    """PIDs of every process whose environment holds `variable=mark`."""
    needle = f"{variable}={mark}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as file:
                if needle in file.read():
                    found.append(int(entry))
        except OSError:  # gone, or not ours to read
            continue
    return found
