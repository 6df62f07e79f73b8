"""Reading the model's answer: what the `<answer>` tags of its reply hold (the reply's text
comes from `swift_gym.reply_text`, the one reading every env shares).

`extract_answer` gives the same answer as reasoning-gym's `reasoning_gym.utils.extract_answer`
(the last `<answer>...</answer>` pair, found left to right, stripped; tested against it) in
linear time: reasoning-gym's lazy regex costs quadratic time on a reply with many opening tags
and no closing one, and a reply is untrusted. Replies over `MAX_REPLY_CHARS` and answers over
`MAX_ANSWER_CHARS` are not scored (a scorer may parse its answer with sympy).
"""

from __future__ import annotations

OPEN, CLOSE = "<answer>", "</answer>"
MAX_REPLY_CHARS = 1_000_000
MAX_ANSWER_CHARS = 20_000


def extract_answer(text: str) -> str | None:
    """The stripped content of the last `<answer>...</answer>` pair of `text`, or None."""
    found = None
    position = 0
    while True:
        start = text.find(OPEN, position)
        end = -1 if start < 0 else text.find(CLOSE, start + len(OPEN))
        if end < 0:
            return None if found is None else found.strip()
        found = text[start + len(OPEN) : end]
        position = end + len(CLOSE)


def read_answer(text: str) -> tuple[str | None, bool, str | None]:
    """(answer, whether to score it, a note for the model) of one reply.

    No tag gives None, scored as reasoning-gym scores a missing answer (0 for every task); an
    oversized reply or answer is not scored at all (reward 0), with a note saying why.
    """
    if len(text) > MAX_REPLY_CHARS:
        return None, False, f"the reply is longer than {MAX_REPLY_CHARS:,} characters"
    answer = extract_answer(text)
    if answer is None:
        return None, True, "no <answer>...</answer> tag was found"
    if len(answer) > MAX_ANSWER_CHARS:
        return None, False, f"the answer is longer than {MAX_ANSWER_CHARS:,} characters"
    return answer, True, None
