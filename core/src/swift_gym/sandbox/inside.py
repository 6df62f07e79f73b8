"""The program that runs inside the sandbox: sets the limits, then runs code once or serves calls.

Never imported by the host: the sandboxed interpreter imports it from a read-only mount of this
file (and its compiled bytecode), started as `python -I -S -c "...; import inside" MODE LIMITS`
(LIMITS: `name=number,...`). Standard library only, and cheap to start: a one-shot run
imports nothing beyond what the interpreter has loaded anyway (`json`, `ast`, `traceback` and
`signal` would double the start-up of `print(1)`).

- `run`: reads the code from stdin, runs it as `__main__`; output goes straight to fds 1 and 2.
- `workspace`: `inside_workspace.py`'s server of shell commands and files in `/work`.
- `repl`: a notebook-like server. Requests come on stdin and answers go out on a private copy
  of stdout, one JSON object per line; the code's own `sys.stdout`/`sys.stderr` are captured
  per call (bounded), and fds 1 and 2 (child processes, `os.write`) go to the host's raw pipe.

Everything here runs next to the untrusted code, so nothing in it is trusted by the host: the
host bounds and checks what comes back.
"""

import _signal as signal  # the C module: `signal` imports enum, a third of a start-up
import os
import resource
import sys


def set_limits(limits):
    """rlimits the kernel enforces for this process and its children (set before any code)."""
    cpu = max(1, int(limits["cpu_seconds"] + 0.999))
    hard_cpu = max(cpu, int(limits["session_cpu_seconds"] + 0.999))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, hard_cpu))
    memory = limits["memory_bytes"]
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits["max_processes"],) * 2)
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits["max_open_files"],) * 2)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["work_bytes"],) * 2)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class Capture:
    """A text stream that keeps the first `cap` characters and counts the rest."""

    encoding = "utf-8"
    errors = "strict"

    def __init__(self, cap):
        self.cap = cap
        self.parts = []
        self.size = 0
        self.cut = False

    def writable(self):
        return True

    def isatty(self):
        return False

    def flush(self):
        pass

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        room = self.cap - self.size
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(room, len(text))
        if len(text) > room:
            self.cut = True
        return len(text)

    def text(self):
        return "".join(self.parts)


class CpuLimitExceeded(BaseException):
    """Raised in the running code when its call used up its CPU time."""


def on_cpu_limit(signum, frame):
    raise CpuLimitExceeded("the call used up its CPU time limit")


def exit_on_cpu_limit(signum, frame):
    os.write(2, b"\nCPU time limit exceeded\n")
    os._exit(128 + signal.SIGXCPU)


def run_once(limits):
    # PID 1 of its namespace ignores signals it has no handler for: SIGXCPU included
    signal.signal(signal.SIGXCPU, exit_on_cpu_limit)
    cpu = resource.getrlimit(resource.RLIMIT_CPU)[0]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    code = sys.stdin.read()
    sys.stdin = open(os.devnull)  # noqa: SIM115 - stays open for the code
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    try:
        exec(compile(code, "<code>", "exec"), namespace)
    except SystemExit:
        raise
    except BaseException as error:
        sys.stderr.write(format_error(error))
        sys.exit(1)


def format_error(error):
    """The traceback of `error` without this program's own frames: only the code's ("<code>")."""
    import traceback

    kept = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == "<code>"]
    lines = ["Traceback (most recent call last):\n", *traceback.format_list(kept)] if kept else []
    lines += traceback.format_exception_only(type(error), error)
    return "".join(lines)


def split_last_expression(code):
    """(module to exec, expression to eval or None): the value of a last expression is shown."""
    import ast

    tree = ast.parse(code, "<code>", "exec")
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
        return compile(tree, "<code>", "exec"), compile(last, "<code>", "eval")
    return compile(tree, "<code>", "exec"), None


def serve(limits):
    import json

    answers = os.fdopen(os.dup(1), "w", encoding="utf-8", errors="backslashreplace")
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8", errors="replace")
    os.dup2(2, 1)  # the code's raw writes and its children's output: the host's raw pipe
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdin = open(os.devnull)  # noqa: SIM115 - stays open for the code
    signal.signal(signal.SIGXCPU, on_cpu_limit)
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    cap = limits["output_bytes"]
    server = os.getpid()
    for line in requests:
        request = json.loads(line)
        answer = call(request["code"], namespace, cap, limits)
        if os.getpid() != server:  # a child the code forked, back from its copy of the code:
            os._exit(0)  # it is not the server, and must not answer nor read the next request
        answer["id"] = request["id"]  # the host refuses an answer that is not its call's
        answers.write(json.dumps(answer, ensure_ascii=False) + "\n")
        answers.flush()


def call(code, namespace, cap, limits):
    out, err = Capture(cap), Capture(cap)
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = int(used.ru_utime + used.ru_stime)
    soft = spent + max(1, int(limits["cpu_seconds"] + 0.999))
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    value, error, limit = None, None, ""
    sys.stdout, sys.stderr = out, err
    try:
        body, last = split_last_expression(code)
        exec(body, namespace)
        if last is not None:
            result = eval(last, namespace)
            if result is not None:
                namespace["_"] = result
                value = repr(result)
                if len(value) > cap:
                    value = value[:cap]
                    out.cut = True
    except CpuLimitExceeded as caught:
        error, limit = format_error(caught), "CPU time"
    except SystemExit as stop:
        error = f"SystemExit: {stop.code!r}\n"
    except BaseException as caught:
        error = format_error(caught)
    finally:
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    return {
        "stdout": out.text(),
        "stderr": err.text(),
        "value": value,
        "error": error[-cap:] if error else None,
        "truncated": out.cut or err.cut,
        "limit": limit,
    }


def main():
    mode = sys.argv[1]
    # a workspace's server lives beside this file: imported before that directory leaves the path
    workspace = __import__("inside_workspace") if mode == "workspace" else None
    del sys.path[0]  # this file's directory: the code's imports see the standard library only
    limits = {}
    for item in sys.argv[2].split(","):
        name, _, number = item.partition("=")
        limits[name] = float(number) if "." in number else int(number)
    ready = limits.pop("ready_fd", None)
    set_limits(limits)
    if ready is not None:  # the host now knows the sandbox started: no code has run yet
        os.write(ready, b"ready")
        os.close(ready)
    if mode == "run":
        run_once(limits)
    elif workspace is not None:
        workspace.serve(limits)
    else:
        serve(limits)


if __name__ == "inside":
    main()
