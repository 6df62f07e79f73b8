"""Field documentation from a dataclass's source: the comment on or just above each field.

reasoning-gym documents its config fields with comments (`max_num_courses: int = 10  # Maximum
number of courses`) rather than docstrings, and the derived pydantic models should show them in
`swift-gym schema`. Reading the source is best effort: no source (a zipped install), no comment,
or a tokenizer error gives no text, never an exception.
"""

from __future__ import annotations

import inspect
import io
import textwrap
import tokenize

MAX_DOC_CHARS = 300


def field_comments(cls: type) -> dict[str, str]:
    """{field name: its comment} for the fields of `cls` that carry one."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (OSError, TypeError, SyntaxError, tokenize.TokenError, IndentationError):
        return {}
    wanted = {field for field in getattr(cls, "__dataclass_fields__", {})}
    found: dict[str, str] = {}
    above: list[str] = []
    line_field: dict[int, str] = {}
    for index, token in enumerate(tokens):
        if token.type == tokenize.COMMENT:
            text = token.string.lstrip("#").strip()
            owner = line_field.get(token.start[0])
            if owner is not None:
                found.setdefault(owner, text)
            elif token.start[1] > 0 and text:
                above.append(text)
            continue
        if token.type == tokenize.NAME and token.start[1] == 4 and token.string in wanted:
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            if following is not None and following.string == ":":
                line_field[token.start[0]] = token.string
                if above:
                    found.setdefault(token.string, " ".join(above))
                above = []
                continue
        layout = token.type in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
        if not layout and token.start[0] not in line_field:
            above = []
    return {name: text[:MAX_DOC_CHARS] for name, text in found.items() if text}
