"""The program that runs inside the sandbox: it loads an answer, then runs the hidden tests or
the prompt's examples against it, and reports what happened on stdout.

Only its source lives here; `grading` fills it in and hands it to `swift_gym.sandbox.run`. It
is standard library only (the sandbox has nothing else). Its reports are lines that begin with a
secret drawn per run, written through the `os.write` and `json.dumps` bound before the answer
runs, so an answer that prints a fake report, patches `json` or exits early does not pass; all
of it lives in one function's closure, so `import __main__` finds nothing to replace. The
hidden tests run in a namespace of their own, built from the trusted prompt (its helpers, such
as `encode_cyclic`) with a copy of the builtins taken before the answer ran; the function under
test is wrapped so that what it returns must be plain data (numbers, strings, None and built-in
containers of them, not subclasses), which closes the "object equal to everything" trick.
"""

from __future__ import annotations

import re

SOURCE = r'''
def _harness():
    import builtins as _builtins
    import json as _json
    import linecache as _linecache
    import os as _os
    import sys as _sys
    import traceback as _traceback

    _SECRET = __SECRET__
    _ANSWER = __ANSWER__
    _PROMPT = __PROMPT__
    _TESTS = __TESTS__
    _ENTRY = __ENTRY__
    _EXAMPLES = __EXAMPLES__
    _write, _dumps, _exit = _os.write, _json.dumps, _os._exit
    _BUILTINS = dict(_builtins.__dict__)
    _PLAIN = (int, float, complex, str, bytes, bool, type(None))
    _CONTAINERS = (list, tuple, set, frozenset, dict)
    _type, _len, _repr, _str, _dict, _bool = type, len, repr, str, dict, bool
    _exec, _compile, _eval, _all = exec, compile, eval, all
    _callable, _enumerate = callable, enumerate


    def _report(**fields):
        try:
            _sys.stdout.flush()
        except BaseException:
            pass
        _write(1, ("\n" + _SECRET + _dumps(fields) + "\n").encode("utf-8", "replace"))


    def _cut(text, limit=300):
        text = _str(text)
        return text if _len(text) <= limit else text[: limit - 3] + "..."


    def _shown(value):
        try:
            return _cut(_repr(value))
        except BaseException as error:
            return "<repr failed: %s>" % _type(error).__name__


    def _remember(name, source):
        lines = source.splitlines(True)
        _linecache.cache[name] = (_len(source), None, lines, name)


    def _error_text(error, limit=1500):
        text = "".join(_traceback.format_exception(_type(error), error, error.__traceback__))
        return text if _len(text) <= limit else "..." + text[-limit:]


    def _line_in(error, name, source):
        """The source line of the innermost frame of `name` in the error's traceback."""
        found = None
        tb = error.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == name:
                found = tb.tb_lineno
            tb = tb.tb_next
        lines = source.splitlines()
        if found is None or not 0 < found <= _len(lines):
            return None
        return _cut(lines[found - 1].strip())


    def _plain(value, depth=0):
        kind = _type(value)
        if kind in _PLAIN:
            return True
        if kind not in _CONTAINERS or depth > 20:
            return False
        items = value.items() if kind is dict else [(item, None) for item in value]
        return _all(_plain(a, depth + 1) and _plain(b, depth + 1) for a, b in items)


    class NotPlainData(Exception):
        pass


    def _guarded(function):
        def candidate(*args, **kwargs):
            value = function(*args, **kwargs)
            if not _plain(value):
                raise NotPlainData(
                    "the function returned %s, not plain data (numbers, strings, None, and "
                    "built-in lists, tuples, sets and dicts of them)" % _type(value).__name__
                )
            return value
        return candidate


    def _load():
        _remember("<answer>", _ANSWER)
        try:
            code = _compile(_ANSWER, "<answer>", "exec")
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
            detail = _traceback.format_exception_only(_type(error), error)
            _report(stage="syntax", error=_cut("".join(detail), 1500))
            return None
        namespace = {"__name__": "answer", "__builtins__": _builtins}
        try:
            _exec(code, namespace)
        except BaseException as error:
            _report(stage="load", error=_error_text(error))
            return None
        function = namespace.get(_ENTRY)
        if not _callable(function):
            _report(stage="missing", error="the answer defines no function named %s" % _ENTRY)
            return None
        return namespace


    def _hidden_tests(function):
        _remember("<hidden tests>", _TESTS)
        namespace = {"__name__": "hidden_tests", "__builtins__": _dict(_BUILTINS)}
        try:
            _exec(_compile(_PROMPT, "<prompt>", "exec"), namespace)
            candidate = namespace[_ENTRY] = _guarded(function)  # some tests call it by name
            _exec(_compile(_TESTS, "<hidden tests>", "exec"), namespace)
            namespace["check"](candidate)
        except AssertionError as error:
            _report(
                stage="assertion",
                assertion=_line_in(error, "<hidden tests>", _TESTS),
                error=_error_text(error),
            )
            return
        except BaseException as error:
            _report(
                stage="error",
                assertion=_line_in(error, "<hidden tests>", _TESTS),
                error=_error_text(error),
            )
            return
        _report(stage="passed")


    def _examples(namespace):
        for index, (call, expected) in _enumerate(_EXAMPLES):
            _report(stage="example_started", index=index)
            try:
                want = _eval(expected, {"__builtins__": _dict(_BUILTINS)})
            except BaseException:
                continue
            try:
                got = _eval(call, namespace)
            except BaseException as error:
                message = "".join(_traceback.format_exception_only(_type(error), error)).strip()
                _report(stage="example", index=index, passed=False, error=_cut(message))
                continue
            try:
                same = _plain(got) and _type(got == want) is bool and (got == want)
            except BaseException:
                same = False
            if not same:
                try:
                    same = _plain(got) and _repr(got) == expected.strip()
                except BaseException:
                    same = False
            _report(stage="example", index=index, passed=_bool(same), got=_shown(got))
        _report(stage="examples_done")


    def _main():
        namespace = _load()
        if namespace is None:
            return
        if _EXAMPLES is None:
            _hidden_tests(namespace[_ENTRY])
        else:
            _examples(namespace)

    _main()
    _sys.stdout.flush()
    _exit(0)


_harness()
'''


_PLACEHOLDER = re.compile(r"__(?:SECRET|ANSWER|PROMPT|TESTS|ENTRY|EXAMPLES)__")


def fill(
    *,
    secret: str,
    answer: str,
    prompt: str,
    tests: str,
    entry_point: str,
    examples: list[tuple[str, str]] | None,
) -> str:
    """The harness with its inputs written in as Python literals (`repr`: any text is safe)."""
    values = {
        "__SECRET__": secret,
        "__ANSWER__": answer,
        "__PROMPT__": prompt,
        "__TESTS__": tests,
        "__ENTRY__": entry_point,
        "__EXAMPLES__": examples,
    }
    # one pass over the template: a value that holds a placeholder's name is not read again
    return _PLACEHOLDER.sub(lambda found: repr(values[found.group(0)]), SOURCE)
