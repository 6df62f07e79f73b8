"""Where output goes, the same way for `dataset`, `eval` and `report` (their `-o`) and for the
evaluation library (`evaluate(output=...)`, `EvalResult.save`).

- `-` is stdout.
- A FIFO, a terminal, `/dev/stdout` (or `/dev/fd/N`) or anything else that is not a regular
  file is written through (appending), never replaced: replacing it would cut the pipe.
- A regular file, or a new path, is replaced atomically: written into a hidden temporary file
  beside it, renamed over it at the end. A symlink is followed, so the link stays and its target
  gets the new content. A new file gets the mode the umask allows (0666 & ~umask), as any Unix
  tool makes it; a file that is replaced keeps its mode.
- `atomic` (the default) means whole or not at all, wherever the output goes: SIGINT, SIGTERM or
  an error before the end remove the temporary file and leave the old one, and stdout or a FIFO
  get the text only once it is complete (from a temporary file in the temp directory).
  `atomic=False` (eval's trajectories, a prefix of which is worth keeping) writes as it goes,
  so a run that is stopped leaves every line written so far.

Text is UTF-8; a character UTF-8 cannot hold (a lone surrogate from a model) is written as its
`\\udXXX` escape, which inside a JSON string is exactly the same character.

Signals are the caller's: this module installs no handler. The command turns SIGTERM into
SystemExit (`cli.app.run`), so the temporary file is removed on SIGTERM as on Ctrl-C; a library
caller killed by a SIGTERM it does not handle may leave a hidden `.swift-gym-*` file beside the
target, never a half-written target. A reader of stdout that has gone raises BrokenPipeError,
which the command turns into a quiet exit 0.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Literal, TextIO

from .errors import OutputError

STDOUT = "-"
_ERRORS = "backslashreplace"
_FD_ALIAS = re.compile(r"/dev/(stdout|stderr|fd/\d+)|/proc/(self|thread-self|\d+)/fd/\d+")
"""Names of an open file descriptor: written through even when it is a redirected file."""


def is_stdout(path: Path | str | None) -> bool:
    return path is not None and str(path) == STDOUT


def describe(path: Path | str) -> str:
    """How messages name the output: `stdout` or the path."""
    return "stdout" if is_stdout(path) else str(path)


def umask() -> int:
    """The process's umask (read by setting it and putting it back)."""
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def _writes_through(path: Path) -> bool:
    """Whether `path` is something to write into rather than replace: not a regular file."""
    if _FD_ALIAS.fullmatch(os.path.abspath(path)):
        return True
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return False  # a new file, or a dangling link: made where the link points


@contextmanager
def open_output(path: Path | str, atomic: bool = True) -> Iterator[IO[str]]:
    """A text file for the command's output at `path` (see the module docstring)."""
    path = Path(path)
    if is_stdout(path) or _writes_through(path):
        with _stream(path) as stream:
            if not atomic:
                yield stream
                return
            with _temporary(Path(tempfile.gettempdir()), 0o600, ".tmp") as (temp, file):
                yield file
                file.close()
                stream.flush()
                with temp.open("rb") as source:
                    shutil.copyfileobj(source, stream.buffer)
                stream.flush()
        return
    target = Path(os.path.realpath(path))
    if not target.parent.is_dir():
        raise OutputError(f"cannot write {path}: directory {target.parent} does not exist")
    if not atomic:
        with _opened(target, "w") as file:
            yield file
        return
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~umask()
    with _temporary(target.parent, mode, target.suffix) as (temp, file):
        yield file
        file.close()
        os.replace(temp, target)


@contextmanager
def _stream(path: Path) -> Iterator[TextIO]:
    """Stdout, or what `path` names opened to write into (appending: a `>>` redirect stays one).

    Opened before anything is written, so a FIFO's reader that waits gets an end of file,
    not a hang, if the command then fails. Stdout closed by its reader raises BrokenPipeError.
    """
    if not is_stdout(path):
        with _opened(path, "a") as file:
            yield file
        return
    sys.stdout.flush()
    if isinstance(sys.stdout, io.TextIOWrapper) and sys.stdout.errors != _ERRORS:
        sys.stdout.reconfigure(errors=_ERRORS)
    yield sys.stdout
    sys.stdout.flush()


@contextmanager
def _opened(path: Path, mode: Literal["a", "w"]) -> Iterator[TextIO]:
    try:
        file = open(path, mode, encoding="utf-8", errors=_ERRORS)  # noqa: SIM115
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror or error}") from None
    with file:
        yield file


@contextmanager
def _temporary(directory: Path, mode: int, suffix: str) -> Iterator[tuple[Path, IO[str]]]:
    """A hidden temporary file in `directory` with `mode`, removed unless renamed away."""
    try:
        handle, name = tempfile.mkstemp(prefix=".swift-gym-", suffix=suffix, dir=directory)
    except OSError as error:
        raise OutputError(f"cannot write in {directory}: {error.strerror or error}") from None
    temp = Path(name)
    try:
        os.fchmod(handle, mode)
        with os.fdopen(handle, "w", encoding="utf-8", errors=_ERRORS) as file:
            yield temp, file
    finally:
        temp.unlink(missing_ok=True)
