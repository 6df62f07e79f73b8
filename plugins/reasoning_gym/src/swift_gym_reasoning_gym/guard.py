"""Answers that must not reach a scorer which runs them as Python.

Nine of reasoning-gym 0.1.25's scorers evaluate the model's answer as code:

- string_insertion, spiral_matrix, binary_matrix and n_queens call `eval(answer)` (for partial
  credit when the answer is a Python list) whenever the answer is not the expected one;
- simple_integration, intermediate_integration, polynomial_multiplication, puzzle24 and
  countdown call sympy's `parse_expr(answer)`, which is `eval` with sympy's names.

So an answer `__import__('os').system(...)` runs, and ten characters (`9**9**9**9`) hold the
process (and the GIL) for hours. An answer is untrusted, so for these tasks this module lets
through only what the scorer can take safely: for the `eval` four, the expected answer itself
or a Python literal (`ast.literal_eval` parses it, so `eval` gives the same value); for the
sympy five, a plain expression of numbers, one-letter symbols and listed functions, with small
exponents that do not stack. Anything else scores 0 with a note, without calling the scorer.

One more scorer makes a huge number of a short answer: coin_flip reads it with `Fraction`,
which computes 10**exponent, so `1e10000000` holds the process for 20 s. Its answers may have
exponents of at most `MAX_EXPONENT_DIGITS` digits.
"""

from __future__ import annotations

import ast
import re
from typing import Any

EVALUATES = frozenset({"string_insertion", "spiral_matrix", "binary_matrix", "n_queens"})
PARSES = frozenset(
    {"simple_integration", "intermediate_integration", "polynomial_multiplication", "puzzle24",
     "countdown"}
)  # fmt: skip
FRACTIONS = frozenset({"coin_flip"})
GUARDED = EVALUATES | PARSES | FRACTIONS

FUNCTIONS = frozenset(
    {
        "sin", "cos", "tan", "cot", "sec", "csc", "asin", "acos", "atan", "acot", "asec", "acsc",
        "sinh", "cosh", "tanh", "coth", "asinh", "acosh", "atanh", "exp", "log", "ln", "sqrt",
        "Abs", "pi", "E", "I", "Integral",
    }
)  # fmt: skip
"""Names an expression may use besides one-letter symbols (what the stored answers use)."""
MAX_EXPONENT_DIGITS = 3
"""A probability written as `3.125e-1` needs one digit; `Fraction` takes up to 4,300."""
MAX_TOKENS = 2000
MAX_DIGITS = 30
MAX_EXPONENT = 99
MAX_POWER_DEPTH = 2
MAX_DEEP_POWERS = 4
"""A power of a power (`(x**2 + 1)**(3/2)`, `(9**99)**99`: depth 2) is fine, a few times;
stacking them deeper is how a short answer makes a number of millions of digits (a 30-digit
number to the power 99, twice, has about 300,000 digits; three times, 29 million)."""

_TOKEN = re.compile(r"\s+|\d+\.\d*|\.\d+|\d+|[A-Za-z][A-Za-z0-9]*|\*\*|[-+*/^(),=]")
_POWER = ("**", "^")
_FRACTION_EXPONENT = re.compile(r"[eE][-+]?([\d_]+)")  # Fraction's, with any Unicode digits


def refusal(task: str, answer: str | None, entry: dict[str, Any]) -> str | None:
    """Why `answer` must not be scored by `task`'s scorer, or None when it may be."""
    if answer is None or task not in GUARDED:
        return None
    if task in EVALUATES:
        return _literal_refusal(answer, entry)
    if task in FRACTIONS:
        return exponent_refusal(answer)
    return expression_refusal(answer)


def exponent_refusal(text: str) -> str | None:
    """Why `Fraction(text)` would make too large a power of ten, or None."""
    for match in _FRACTION_EXPONENT.finditer(text):
        if len(match.group(1).replace("_", "").lstrip("0")) > MAX_EXPONENT_DIGITS:
            return f"an exponent has more than {MAX_EXPONENT_DIGITS} digits"
    return None


def _literal_refusal(answer: str, entry: dict[str, Any]) -> str | None:
    metadata = entry.get("metadata")
    valid = metadata.get("valid_answers") if isinstance(metadata, dict) else None
    if answer == entry.get("answer") or (isinstance(valid, list) and answer in valid):
        return None
    try:
        ast.literal_eval(answer)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return "not the expected answer, nor a Python literal this task may evaluate"
    return None


def expression_refusal(text: str) -> str | None:
    """Why `text` is not a plain expression sympy may parse safely, or None."""
    tokens = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            return f"the character {text[position]!r} is not allowed in an expression"
        position = match.end()
        if not match.group().isspace():
            tokens.append(match.group())
        if len(tokens) > MAX_TOKENS:
            return f"the expression has more than {MAX_TOKENS} tokens"
    groups = [0]  # the deepest power inside each open parenthesis (and the whole)
    closed = 0  # that of the group just closed
    deep = 0
    for index, token in enumerate(tokens):
        if token[0].isalpha() and len(token) > 1 and token not in FUNCTIONS:
            return f"the name {token!r} is not allowed in an expression"
        if token[0].isdigit() and len(token.replace(".", "")) > MAX_DIGITS:
            return f"a number has more than {MAX_DIGITS} digits"
        if token == "(":
            groups.append(0)
        elif token == ")":
            if len(groups) == 1:
                return "unbalanced parentheses"
            closed = groups.pop()
            groups[-1] = max(groups[-1], closed)
        elif token in _POWER:
            base = closed if index > 0 and tokens[index - 1] == ")" else 0
            depth = base + 1
            groups[-1] = max(groups[-1], depth)
            deep += depth >= MAX_POWER_DEPTH
            if depth > MAX_POWER_DEPTH or deep > MAX_DEEP_POWERS:
                return "powers of powers are stacked too deep"
            problem = _exponent_refusal(tokens, index + 1)
            if problem:
                return problem
    return None


def _exponent_refusal(tokens: list[str], start: int) -> str | None:
    """An exponent is a small number, a symbol, or a small fraction in parentheses, and is not
    itself raised to a power (`9**9**9` is 9**(9**9))."""
    index = start
    if index < len(tokens) and tokens[index] in ("-", "+"):
        index += 1
    if index >= len(tokens):
        return "an exponent is missing"
    token = tokens[index]
    if token == "(":
        end = index + 1
        while end < len(tokens) and tokens[end] != ")":
            inner = tokens[end]
            if inner in _POWER or inner == "(" or (inner[0].isalpha() and len(inner) > 1):
                return "an exponent in parentheses may hold only numbers, symbols and + - * /"
            if inner[0].isdigit() and _too_big(inner):
                return f"an exponent is larger than {MAX_EXPONENT}"
            end += 1
        after = end + 1
    elif token[0].isdigit():
        if _too_big(token):
            return f"an exponent is larger than {MAX_EXPONENT}"
        after = index + 1
    elif token[0].isalpha() and len(token) == 1:
        after = index + 1
    else:
        return "an exponent must be a number, a symbol or a fraction in parentheses"
    if after < len(tokens) and tokens[after] in _POWER:
        return "powers of powers are not allowed"
    return None


def _too_big(number: str) -> bool:
    try:
        return float(number) > MAX_EXPONENT
    except ValueError:
        return True
