"""Bugs made by AST mutation: the sites in a file's functions where one small edit changes what
the code does (a flipped comparison, an off-by-one constant, a negated condition, swapped
arguments, a removed statement, a changed return value, `and` <-> `or`, `+` <-> `-`).

The AST says where the nodes are; the edit is made in the source text, on the operator's token
or the node's own characters, so the rest of the file keeps its formatting and the patch is a
line or two. Sites come sorted (file, line, column, operator, replacement), so the same file
always gives the same list; choosing among them is the caller's, with a seeded RNG."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from .patches import lines_of

OPERATORS = (
    "flip_comparison",
    "comparison_boundary",
    "off_by_one",
    "negate_condition",
    "swap_arguments",
    "remove_statement",
    "change_return",
    "bool_operator",
    "arithmetic",
)

_FLIP = {
    ast.Lt: ">=",
    ast.LtE: ">",
    ast.Gt: "<=",
    ast.GtE: "<",
    ast.Eq: "!=",
    ast.NotEq: "==",
    ast.Is: "is not",
    ast.IsNot: "is",
    ast.In: "not in",
    ast.NotIn: "in",
}
_BOUNDARY = {ast.Lt: "<=", ast.LtE: "<", ast.Gt: ">=", ast.GtE: ">"}
_TOKEN = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Add: "+",
    ast.Sub: "-",
    ast.And: "and",
    ast.Or: "or",
}
_ARITHMETIC = {ast.Add: "-", ast.Sub: "+"}
_SIMPLE_STATEMENTS = (
    ast.Expr,
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.Raise,
    ast.Delete,
    ast.Break,
    ast.Continue,
)
# Names whose calls and conditions are about the interpreter, not the project's behaviour.
_PLAIN_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)


@dataclass(frozen=True, order=True)
class Mutation:
    """One edit of a file's text: characters [start, end) become `replacement`."""

    path: str
    line: int
    column: int
    operator: str
    replacement: str
    start: int
    end: int
    function: str

    def apply(self, source: str) -> str:
        return source[: self.start] + self.replacement + source[self.end :]


class _Text:
    """A source text with AST positions (line, UTF-8 byte column) turned into text offsets."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.lines = lines_of(source)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, line: int, byte_col: int) -> int:
        text = self.lines[line - 1]
        return self.starts[line - 1] + len(text.encode("utf-8")[:byte_col].decode("utf-8"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (
            self.offset(node.lineno, node.col_offset),
            self.offset(node.end_lineno, node.end_col_offset),
        )

    def segment(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.source[start:end]


def mutations(source: str, path: str) -> list[Mutation]:
    """Every mutation site of the functions in `source` (a file's text, `path` its name in
    patches), sorted. A few may not parse or may not change the code: ask `changes_code`
    before using one (checking all of them up front would parse the file once per site)."""
    tree = ast.parse(source)
    text = _Text(source)
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list):
                for statement in body:
                    statement._body_siblings = body  # type: ignore[attr-defined]
    found = set()
    for function, node in _function_nodes(tree):
        for operator, start, end, replacement in _sites(node, text):
            line = source.count("\n", 0, start) + 1
            column = start - (source.rfind("\n", 0, start) + 1)
            found.add(Mutation(path, line, column, operator, replacement, start, end, function))
    return sorted(found)


def changes_code(source: str, mutation: Mutation, original: str | None = None) -> bool:
    """Whether the mutated source parses and means something else than the original
    (`original`: the source's ast.dump, when the caller has it)."""
    try:
        changed = ast.dump(ast.parse(mutation.apply(source)))
    except SyntaxError:
        return False
    return changed != (original if original is not None else ast.dump(ast.parse(source)))


def _function_nodes(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    """(qualified function name, node) for every node inside a function's body (its docstring
    and the insides of f-strings left out); a nested definition's nodes under its own name."""

    def definitions(node: ast.AST, prefix: str) -> Iterator[tuple[str, ast.AST]]:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = f"{prefix}{node.name}"
            yield from statements(_without_docstring(node.body), name)
        elif isinstance(node, ast.ClassDef):
            for child in node.body:
                yield from definitions(child, f"{prefix}{node.name}.")
        elif isinstance(node, (ast.Module, ast.If, ast.Try)) or not isinstance(node, ast.expr):
            for child in ast.iter_child_nodes(node):
                yield from definitions(child, prefix)

    def statements(body: list[ast.stmt], function: str) -> Iterator[tuple[str, ast.AST]]:
        for statement in body:
            yield from inside(statement, function)

    def inside(node: ast.AST, function: str) -> Iterator[tuple[str, ast.AST]]:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield from definitions(node, function + ".")
            return
        if isinstance(node, ast.JoinedStr):
            return
        yield function, node
        for child in ast.iter_child_nodes(node):
            yield from inside(child, function)

    yield from definitions(tree, "")


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    is_docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
    if is_docstring and isinstance(first.value.value, str):
        return body[1:]
    return body


def _sites(node: ast.AST, text: _Text) -> Iterator[tuple[str, int, int, str]]:
    """(operator, start, end, replacement) for each edit of this one node."""
    if isinstance(node, ast.Compare):
        left = node.left
        for op, right in zip(node.ops, node.comparators, strict=True):
            token = _token_between(text, left, right, _TOKEN[type(op)])
            if token is not None:
                yield ("flip_comparison", *token, _FLIP[type(op)])
                if type(op) in _BOUNDARY:
                    yield ("comparison_boundary", *token, _BOUNDARY[type(op)])
            left = right
    elif isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        token = _token_between(text, node.left, node.right, _TOKEN[type(node.op)])
        if token is not None:
            yield ("arithmetic", *token, _ARITHMETIC[type(node.op)])
    elif isinstance(node, ast.AugAssign) and type(node.op) in _ARITHMETIC:
        token = _token_between(text, node.target, node.value, _TOKEN[type(node.op)] + "=")
        if token is not None:
            yield ("arithmetic", *token, _ARITHMETIC[type(node.op)] + "=")
    elif isinstance(node, ast.BoolOp):
        other = "or" if isinstance(node.op, ast.And) else "and"
        tokens = [
            _token_between(text, a, b, _TOKEN[type(node.op)])
            for a, b in zip(node.values, node.values[1:], strict=False)
        ]
        if tokens and None not in tokens:
            start, end = tokens[0][0], tokens[-1][1]
            # Every operator token of this BoolOp flips at once; the operands between stay.
            pieces, at = [], start
            for t_start, t_end in tokens:
                pieces.append(text.source[at:t_start])
                pieces.append(other)
                at = t_end
            pieces.append(text.source[at:end])
            yield ("bool_operator", start, end, "".join(pieces))
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        start, end = text.span(node)
        literal = text.source[start:end]
        if literal.isdigit() and len(literal) < 12:
            value = int(literal)
            yield ("off_by_one", start, end, str(value + 1))
            if value > 0:
                yield ("off_by_one", start, end, str(value - 1))
    elif isinstance(node, (ast.If, ast.While, ast.IfExp)):
        yield from _negated(node.test, text)
    elif isinstance(node, ast.Call):
        args = node.args
        if len(args) >= 2 and not any(isinstance(a, ast.Starred) for a in args[:2]):
            first, second = text.segment(args[0]), text.segment(args[1])
            if first != second:
                start, _ = text.span(args[0])
                mid_start, mid_end = text.span(args[0])[1], text.span(args[1])[0]
                _, end = text.span(args[1])
                between = text.source[mid_start:mid_end]
                if between.strip() == ",":
                    yield ("swap_arguments", start, end, second + between + first)
    elif isinstance(node, ast.Return) and node.value is not None:
        start, end = text.span(node.value)
        value = node.value
        if isinstance(value, ast.Constant) and value.value is None:
            return
        if isinstance(value, ast.Constant) and isinstance(value.value, bool):
            yield ("change_return", start, end, str(not value.value))
        else:
            yield ("change_return", start, end, "None")
    if isinstance(node, _SIMPLE_STATEMENTS):
        removal = _removal(node, text)
        if removal is not None:
            yield ("remove_statement", *removal, "")


def _negated(test: ast.expr, text: _Text) -> Iterator[tuple[str, int, int, str]]:
    start, end = text.span(test)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner_start, inner_end = text.span(test.operand)
        inner = text.source[inner_start:inner_end]
        if isinstance(test.operand, _PLAIN_ATOMS):
            yield ("negate_condition", start, end, inner)
        else:
            yield ("negate_condition", start, end, f"({inner})")
        return
    segment = text.source[start:end]
    if isinstance(test, _PLAIN_ATOMS):
        yield ("negate_condition", start, end, f"not {segment}")
    else:
        yield ("negate_condition", start, end, f"not ({segment})")


def _token_between(
    text: _Text, left: ast.AST, right: ast.AST, token: str
) -> tuple[int, int] | None:
    """The span of `token` between two operands, when the text between them is only that token,
    whitespace and parentheses (no comments, no line continuations to trip on)."""
    start = text.span(left)[1]
    end = text.span(right)[0]
    gap = text.source[start:end]
    pattern = r"\s+".join(re.escape(word) for word in token.split())
    if token[0].isalpha():
        pattern = rf"\b{pattern}\b"
    matches = list(re.finditer(pattern, gap))
    if len(matches) != 1:
        return None
    match = matches[0]
    rest = gap[: match.start()] + gap[match.end() :]
    if rest.strip(" \t\n()"):
        return None
    return start + match.start(), start + match.end()


def _removal(node: ast.stmt, text: _Text) -> tuple[int, int] | None:
    """The span of a statement's whole lines, when it stands alone on them in a body that keeps
    at least one other statement."""
    parent_body = getattr(node, "_body_siblings", None)
    if parent_body is not None and len(parent_body) < 2:
        return None
    start, end = text.span(node)
    line_start = text.starts[node.lineno - 1]
    line_end = text.starts[node.end_lineno]
    if text.source[line_start:start].strip() or text.source[end:line_end].strip():
        return None
    return line_start, line_end
