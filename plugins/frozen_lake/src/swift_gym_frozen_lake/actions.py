"""From the model's newest reply to one of `ACTIONS`, or None.

A rollout can hand the env anything (None content, multimodal content parts, a 10 MB reply, an
empty history), so nothing here raises, and no regex can backtrack without bound: the cost is
linear in the reply's length whatever it contains.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from swift_gym.replies import content_text, reply_text  # noqa: F401 - this package's names too

from .maps import ACTIONS

ActionParsing = Literal["first_tag", "last_tag", "single_tag", "exact", "upstream"]
PARSING_MODES: tuple[str, ...] = ("first_tag", "last_tag", "single_tag", "exact", "upstream")

_ACTION_SET = frozenset(ACTIONS)
MAX_TAG_CONTENT = 64
_TAG = re.compile(
    rf"<\s{{0,8}}action\s{{0,8}}>([^<>]{{0,{MAX_TAG_CONTENT}}})<\s{{0,8}}/\s{{0,8}}action\s{{0,8}}>",
    re.IGNORECASE,
)


def _ascii_letters(word: str) -> str:
    """`word` as a pattern matching its ASCII letters in either case, and nothing else.

    Under IGNORECASE, Python's `re` also matches lookalikes: dotless "\u0131" and dotted
    "\u0130" match "i", so the ms-swift example reads "r\u0131ght" as a direction, then raises
    KeyError on it. Here a lookalike spelling is simply not a direction.
    """
    return "".join(f"[{ch}{ch.upper()}]" for ch in word)


def _directions(words: tuple[str, ...]) -> str:
    return "(?-i:(" + "|".join(_ascii_letters(word) for word in words) + "))"


_UPSTREAM_TAG = re.compile(rf"<action>\s*{_directions(ACTIONS)}\s*</action>", re.IGNORECASE)
r"""The ms-swift example's tag: only a tag holding a direction is a tag.

The tag name stays case-insensitive as upstream (lookalikes included: "<act\u0131on>" is a tag
there, and no error follows); `\s` is Unicode whitespace as upstream. Linear: each `\s*` run
can only follow the one `<action>` before it.
"""
_UPSTREAM_WORD_REVERSED = re.compile(
    rf"\b{_directions(tuple(word[::-1] for word in ACTIONS))}\b", re.IGNORECASE
)
r"""Whole direction words spelled backwards: in the reversed reply the first match is the LAST
word of the reply. `\b` (Unicode word boundaries, as upstream) reads the same both ways."""


ANSWER_FORMAT = (
    "<action>up</action>, <action>down</action>, <action>left</action> or <action>right</action>"
)


def _direction(content: str) -> str | None:
    word = content.strip().lower()
    return word if word in _ACTION_SET else None


def parse_action(text: Any, mode: ActionParsing = "first_tag") -> str | None:
    """The action `text` asks for under `mode`, or None when there is no valid action.

    - "first_tag": the first `<action>...</action>` tag decides; content that is not a
      direction makes the action invalid (later tags are not consulted).
    - "last_tag": the last tag decides.
    - "single_tag": exactly one tag is required; two or more make the action invalid.
    - "exact": the reply, apart from whitespace around it, must be one tag and nothing else, so
      "<action>up</action> ok" is invalid (for training where any extra text should cost).
    - "upstream": exactly as the ms-swift example reads a reply: the first tag that holds a
      direction (`<action>\\s*(up|down|left|right)\\s*</action>`, so `<action>move up</action>`
      is no tag), else the LAST whole word up/down/left/right anywhere in the text (so "set up"
      means up). One deliberate difference: the example raises KeyError on a direction spelled
      with lookalike letters ("r\\u0131ght"); here such a spelling is not a direction.

    Tags and directions are case-insensitive; in the first three modes spaces are allowed inside
    the tag and around the direction. `text` that is not a string is no action.
    """
    if not isinstance(text, str):
        return None
    if mode == "upstream":
        match = _UPSTREAM_TAG.search(text)
        if match is None:
            match = _UPSTREAM_WORD_REVERSED.search(text[::-1])
            return None if match is None else match.group(1)[::-1].lower()
        return match.group(1).lower()
    if mode == "first_tag":
        match = _TAG.search(text)
        return None if match is None else _direction(match.group(1))
    if mode == "last_tag":
        last = None
        for last in _TAG.finditer(text):  # noqa: B007 - we want the final match
            pass
        return _direction(last.group(1)) if last is not None else None
    if mode == "single_tag":
        tags = _TAG.finditer(text)
        first = next(tags, None)
        if first is None or next(tags, None) is not None:
            return None
        return _direction(first.group(1))
    if mode == "exact":
        match = _TAG.fullmatch(text.strip())
        return None if match is None else _direction(match.group(1))
    return None


def explain_invalid(text: str, mode: ActionParsing) -> str:
    """Why `parse_action(text, mode)` found no action, in one ASCII clause for the observation.

    Only called off the hot path, after parsing failed.
    """
    if not text.strip():
        return "the reply is empty"
    if mode == "single_tag":
        count = sum(1 for _ in _TAG.finditer(text))
        if count > 1:
            return f"the reply has {count} <action> tags; give exactly one"
    if mode == "exact":
        tag = _TAG.fullmatch(text.strip())
        if tag is None:
            if _TAG.search(text) is not None:
                return "the reply has text besides one <action> tag; give the tag alone"
            return "the reply has no <action>...</action> tag"
        return f"the <action> tag holds {tag.group(1).strip()!a}, which is not a direction"
    tag = None
    if mode == "last_tag":
        for tag in _TAG.finditer(text):  # noqa: B007 - we want the final match
            pass
    else:
        tag = _TAG.search(text)
    if tag is None:
        if mode == "upstream":
            return "the reply has no <action> tag and no direction word"
        return "the reply has no <action>...</action> tag"
    shown = ascii(tag.group(1).strip())
    return f"the <action> tag holds {shown}, which is not a direction"
