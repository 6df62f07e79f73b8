"""The server inside a workspace sandbox: runs shell commands in `/work` and reads and writes files.

Never imported by the host: `inside.py` imports it in mode `workspace`, from the same read-only
mount. Standard library only. It is PID 1 of the sandbox's PID namespace, so every process a
command starts (background jobs, `nohup`, `setsid`, double-forked daemons) is, or becomes once
orphaned, in its namespace: after every command it sends SIGKILL to all of them
(`kill(-1)`: the kernel signals every process of the namespace but PID 1, atomically with
respect to fork) and reaps them until none is left, before it answers.

Requests come on stdin, one JSON object per line with an `id` its answer repeats; answers go
out on a private copy of stdout. A command's stdout and stderr go to one pipe of its own (at
most `output_bytes` kept: the first and last halves; a flood far past it kills the command).
The server makes itself non-dumpable first, so a command cannot open its pipes through
`/proc/1/fd` nor trace it (every capability is dropped: only a dumpable process could be).

Everything here runs beside untrusted commands: the host bounds and checks what comes back.
"""

import contextlib
import json
import os
import resource
import select
import signal
import sys
import time

WORK = "/work"
SOURCE = "/.swift_gym/source"
FLOOD = 64
"""A command whose output passes FLOOD times output_bytes is killed (`yes`, `cat /dev/zero`)."""
DIFF_FILE_BYTES = 1_000_000
"""Files larger than this are said to differ, not diffed (difflib is quadratic at worst)."""
SKIPPED = ("__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache")


def serve(limits):
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8", errors="replace")
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.close(devnull)
    not_dumpable()
    # the server's own CPU: the session's whole budget (commands get theirs, per process)
    session = resource.getrlimit(resource.RLIMIT_CPU)[1]
    resource.setrlimit(resource.RLIMIT_CPU, (session, session))
    for line in requests:
        request = {}
        try:
            request = json.loads(line)
            answer = handle(request, limits)
        except Exception as error:  # a bad request is the host's bug: said, not fatal
            answer = {"error": f"{type(error).__name__}: {error}"}
        answer["id"] = request.get("id") if isinstance(request, dict) else None
        answers.write(json.dumps(answer, ensure_ascii=True) + "\n")
        answers.flush()


def not_dumpable():
    """PR_SET_DUMPABLE 0: no other process of the sandbox may open /proc/1/fd or trace us."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)
    except Exception:  # without ctypes the server is as exposed as a session's interpreter
        pass


def handle(request, limits):
    op = request["op"]
    if op == "run":
        return run(request["command"], request["timeout"], limits)
    if op == "setup":
        return setup()
    if op == "read":
        return read(request["path"], request.get("start"), request.get("end"), request["cap"])
    if op == "write":
        return write(request["path"], request["text"])
    if op == "edit":
        return edit(request["path"], request["old"], request["new"])
    if op == "diff":
        return diff(request["cap"])
    return {"error": f"unknown operation {op!r}"}


def setup():
    """Copy the source (a read-only mount of the host's directory) into /work."""
    if not os.path.isdir(SOURCE):
        return {"files": 0}
    import shutil

    try:
        shutil.copytree(SOURCE, WORK, symlinks=True, dirs_exist_ok=True)
    except (OSError, shutil.Error) as error:
        return {"error": f"could not copy the source into {WORK}: {describe(error)}"}
    return {"files": sum(len(files) for _, _, files in os.walk(WORK))}


def describe(error):
    text = str(error)
    return text[:500] + "..." if len(text) > 500 else text


def shell():
    return "/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh"


def run(command, timeout, limits):
    cap = limits["output_bytes"]
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError as error:
        os.close(read_end)
        os.close(write_end)
        return {"error": f"could not start the command: {describe(error)}"}
    if pid == 0:
        start_command(command, write_end, limits)
    os.close(write_end)
    output = Output(cap)
    status, limit = wait_for(pid, read_end, output, timeout, cap)
    left = kill_all()
    try:
        drain(read_end, output)
    finally:
        os.close(read_end)
    exit_code, ended_by = exit_of(status)
    return {
        "output": output.text(),
        "exit_code": None if limit else exit_code,
        "limit": limit or ended_by,
        "truncated": output.cut > 0,
        "left": left,
    }


def start_command(command, write_end, limits):
    """In the forked child: a session of its own, output to the pipe, its own CPU limit."""
    try:
        os.setsid()
        os.dup2(write_end, 1)
        os.dup2(write_end, 2)
        os.closerange(3, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
        for number in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGXCPU, signal.SIGINT):
            signal.signal(number, signal.SIG_DFL)
        cpu = max(1, int(limits["cpu_seconds"] + 0.999))
        hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        if hard == resource.RLIM_INFINITY or cpu + 1 <= hard:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        os.chdir(WORK)
        program = shell()
        os.execve(program, [program, "-c", command], dict(os.environ))
    except BaseException:
        pass
    os._exit(127)


class Output:
    """The first and last halves of `cap` bytes of a stream, and how many bytes between were cut."""

    def __init__(self, cap):
        self.half = cap // 2
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.cut = 0

    def add(self, chunk):
        self.total += len(chunk)
        room = self.half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            extra = len(self.tail) - self.half
            if extra > 0:
                del self.tail[:extra]
                self.cut += extra

    def text(self):
        head = self.head.decode("utf-8", "replace")
        tail = self.tail.decode("utf-8", "replace")
        if self.cut:
            return f"{head}\n[... {self.cut:,} bytes of output cut ...]\n{tail}"
        return head + tail


def wait_for(pid, read_end, output, timeout, cap):
    """(the command's wait status or None, the limit that stopped it or "")."""
    os.set_blocking(read_end, False)
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    poller = select.poll()
    poller.register(read_end, select.POLLIN)
    if pidfd is not None:
        poller.register(pidfd, select.POLLIN)
    deadline = time.monotonic() + timeout
    limit = ""
    try:
        while True:
            waited, status = os.waitpid(pid, os.WNOHANG)
            if waited == pid:
                return status, ""
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                limit = "wall time"
                break
            wait_ms = remaining * 1000 if pidfd is not None else min(remaining * 1000, 20)
            for fd, _ in poller.poll(wait_ms):
                if fd == read_end:
                    drain(read_end, output, once=True)
            if output.total > FLOOD * cap:
                limit = "output size"
                break
    finally:
        if pidfd is not None:
            os.close(pidfd)
    return None, limit


def drain(fd, output, once=False):
    while True:
        try:
            chunk = os.read(fd, 65_536)
        except BlockingIOError:
            return
        except OSError:
            return
        if not chunk:
            return
        output.add(chunk)
        if once:
            return


def exit_of(status):
    """(the exit code as a shell says it, the limit a signal stands for)."""
    if status is None:
        return None, ""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        return 128 + number, limit_of_signal(number)
    code = os.WEXITSTATUS(status)
    return code, limit_of_signal(code - 128) if code > 128 else ""


def limit_of_signal(number):
    if number == signal.SIGXCPU:
        return "CPU time"
    if number == signal.SIGXFSZ:
        return "file size"
    return ""


def kill_all():
    """SIGKILL every process of the namespace but this one, and reap them; the number left."""
    deadline = time.monotonic() + 5
    while True:
        with contextlib.suppress(OSError):
            os.kill(-1, signal.SIGKILL)
        while True:
            try:
                waited, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                waited = -1
            if waited <= 0:
                break
        others = [entry for entry in os.listdir("/proc") if entry.isdigit() and entry != "1"]
        if not others or time.monotonic() > deadline:
            return len(others)
        time.sleep(0.001)


def resolve(path):
    return path if path.startswith("/") else os.path.join(WORK, path)


def read_bytes(path, cap):
    """(the first `cap` bytes of a regular file, whether there was more); never blocks on a FIFO."""
    fd = os.open(resolve(path), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        import stat

        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(f"{path} is a directory")
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path} is not a regular file")
        chunks, size = [], 0
        while size <= cap:
            chunk = os.read(fd, min(1 << 20, cap + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
        return data[:cap], len(data) > cap
    finally:
        os.close(fd)


def read(path, start, end, cap):
    try:
        data, more = read_bytes(path, 64 * 1024 * 1024)
    except OSError as error:
        return {"error": describe(error)}
    lines = split_lines(data.decode("utf-8", "replace"))
    first = max(1, start or 1)
    last = len(lines) if end is None else min(end, len(lines))
    chosen, size, cut = [], 0, more
    for line in lines[first - 1 : last]:
        if size + len(line) > cap:
            chosen.append(line[: cap - size])
            cut = True
            break
        chosen.append(line)
        size += len(line)
    return {
        "text": "".join(chosen),
        "first": first,
        "last": first + len(chosen) - 1,
        "lines": len(lines),
        "truncated": cut,
    }


def write(path, text):
    target = resolve(path)
    try:
        parent = os.path.dirname(target)
        if parent:
            os.makedirs(parent, exist_ok=True)
        with open(target, "wb") as file:
            file.write(text.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError:
        return {"error": "the text holds characters that are not valid Unicode"}
    except OSError as error:
        return {"error": describe(error)}
    return {"bytes": len(text)}


def edit(path, old, new):
    if not old:
        return {"error": "old_text is empty: give the exact text to replace"}
    try:
        data, more = read_bytes(path, 64 * 1024 * 1024)
        if more:
            return {"error": f"{path} is too large to edit"}
        text = data.decode("utf-8", "surrogateescape")
        count = text.count(old)
        if count != 1:
            where = "does not occur" if count == 0 else f"occurs {count} times"
            how = "" if count == 0 else "; include more of the text around it to pick one"
            return {"error": f"old_text {where} in {path}{how}", "matches": count}
        edited = text.replace(old, new, 1).encode("utf-8", "surrogateescape")
        with open(resolve(path), "wb") as file:
            file.write(edited)
    except UnicodeEncodeError:
        return {"error": "the text holds characters that are not valid Unicode"}
    except OSError as error:
        return {"error": describe(error)}
    line = text[: text.index(old)].count("\n") + 1
    return {"line": line}


def tree(root):
    """{relative path: absolute path} of the files and links under `root`, caches left out."""
    found = {}
    if not os.path.isdir(root):
        return found
    for directory, folders, files in os.walk(root):
        folders[:] = sorted(name for name in folders if name not in SKIPPED)
        for name in files:
            if name.endswith(".pyc"):
                continue
            full = os.path.join(directory, name)
            found[os.path.relpath(full, root)] = full
        for name in folders:
            full = os.path.join(directory, name)
            if os.path.islink(full):
                found[os.path.relpath(full, root)] = full
    return found


def content(path):
    """A file's bytes, a link's target (marked), or None for a file too large to diff."""
    if path is None:
        return b""
    if os.path.islink(path):
        return b"symlink -> " + os.fsencode(os.readlink(path)) + b"\n"
    try:
        if os.path.getsize(path) > DIFF_FILE_BYTES:
            return None
        with open(path, "rb") as file:
            return file.read()
    except OSError as error:
        return f"(unreadable: {describe(error)})\n".encode()


def diff(cap):
    import difflib

    before, after = tree(SOURCE), tree(WORK)
    parts, size, cut = [], 0, False
    for name in sorted(set(before) | set(after)):
        old_path, new_path = before.get(name), after.get(name)
        old, new = content(old_path), content(new_path)
        if old == new and old is not None:
            continue
        a = f"a/{name}" if old_path else "/dev/null"
        b = f"b/{name}" if new_path else "/dev/null"
        if old is None or new is None or b"\0" in old or b"\0" in new:
            piece = f"Binary files {a} and {b} differ\n"
        else:
            lines = difflib.unified_diff(
                terminated(old.decode("utf-8", "replace")),
                terminated(new.decode("utf-8", "replace")),
                a,
                b,
            )
            piece = f"diff -ruN {a} {b}\n" + "".join(lines)
        if size + len(piece) > cap:
            parts.append(piece[: cap - size])
            cut = True
            break
        parts.append(piece)
        size += len(piece)
    return {"diff": "".join(parts), "truncated": cut}


def split_lines(text):
    """Lines ending at "\\n" only (str.splitlines also splits at \\r, \\f and others)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def terminated(text):
    """Lines for a unified diff: a last line with no newline is marked as `diff` marks it."""
    lines = split_lines(text)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


if __name__ == "__main__":
    sys.exit("imported by inside.py in the sandbox, not run")
