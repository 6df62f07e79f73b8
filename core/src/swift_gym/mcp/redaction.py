"""The operator's secrets taken out of what a server says, before anyone reads it.

A server is the operator's program, but it is careless as often as any: a traceback shows its
environment, an error repeats the token it was given. What a server writes reaches messages,
`swift-gym eval`'s output, trajectory records and the model itself, so every text from a server
that becomes an error (its stderr when it fails to start, an error it answers, a tool's error
result) goes through `redact` first, with the secrets of its settings (`ServerSpec.secrets()`).

Each secret is replaced wherever it appears as written, JSON-escaped, as a Python repr writes
it, or percent-encoded; the words of a value with spaces too (the token of `Bearer <token>`),
from `MIN_WORD_CHARS` characters. Values shorter than `MIN_CHARS` are left alone: "1" or "on"
are settings, and replacing them everywhere would garble the text. A text that was cut (the
4 KiB kept of a stderr) loses a secret's first characters at its very end too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from urllib.parse import quote, quote_plus

MIN_CHARS = 4
"""A value this long or longer is a secret to redact."""
MIN_WORD_CHARS = 8
"""A word of a value with spaces, this long or longer, is redacted on its own too."""
MIN_CUT_CHARS = 3
"""A secret's first characters at the end of a cut text, this many or more, are redacted."""


def redact(text: str, secrets: Mapping[str, str], cut: bool = False) -> str:
    """`text` with each value of `secrets` (label -> value) replaced by `[redacted: label]`;
    `cut`: the text was cut short, so a secret's start at its end is replaced too."""
    found = _forms(secrets)
    if not found or not text:
        return text
    pattern = re.compile("|".join(re.escape(form) for form in found))
    text = pattern.sub(lambda match: f"[redacted: {found[match.group()]}]", text)
    if cut:
        text = _without_cut_secret(text, found)
    return text


def _forms(secrets: Mapping[str, str]) -> dict[str, str]:
    """Each way a secret may be written (form -> label), the longest first."""
    found: dict[str, str] = {}
    for label, value in secrets.items():
        if len(value) < MIN_CHARS:
            continue
        words = [word for word in value.split() if len(word) >= MIN_WORD_CHARS]
        for part in (value, *words):
            for form in (
                part,
                json.dumps(part)[1:-1],
                repr(part)[1:-1],
                quote(part, safe=""),
                quote_plus(part, safe=""),
            ):
                found.setdefault(form, label)
    return dict(sorted(found.items(), key=lambda item: -len(item[0])))


def _without_cut_secret(text: str, found: Mapping[str, str]) -> str:
    """`text` whose end, if it is the start of a secret, is redacted (the longest such end)."""
    size, label = max(
        (
            (size, label)
            for form, label in found.items()
            for size in range(MIN_CUT_CHARS, min(len(form) - 1, len(text)) + 1)
            if text.endswith(form[:size])
        ),
        default=(0, ""),
    )
    return f"{text[:-size]}[redacted: {label}, cut]" if size else text
