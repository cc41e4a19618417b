"""Where code spells a game's name: its code read as a reader of code would, comments and docstrings (prose)
left out. Shared by the one-list guard (tests/rules/test_one_list.py) and the checklist's test
(tests/rules/test_checklist.py)."""

from __future__ import annotations

import ast
import io
import re
import tokenize

import referee

__all__ = ["python_code", "rust_code", "spellings"]

_SPELLED = re.compile(r"(?i)\b(" + "|".join(referee.games()) + r")\b")


def rust_code(text: str) -> list[tuple[int, str]]:
    """The numbered lines of Rust code, comments and tests left out."""
    for tests in ("#[cfg(test)]\nmod tests", "#[cfg(test)]\npub(crate) mod tests"):
        text = text.split(tests)[0]
    return [(number, line.split("//")[0]) for number, line in enumerate(text.splitlines(), 1)]


def python_code(text: str) -> list[tuple[int, str]]:
    """The names and strings of Python code with their line numbers, docstrings and comments left out."""
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                docstrings.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    kinds = {tokenize.NAME, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    return [(token.start[0], token.string) for token in tokenize.generate_tokens(io.StringIO(text).readline)
            if token.type in kinds and token.start[0] not in docstrings]


def spellings(path: str, text: str) -> list[tuple[int, str]]:
    """Where a file's code spells a game's name: (line, name)."""
    if path.endswith(".rs"):
        code = rust_code(text)
    elif path.endswith(".py"):
        code = python_code(text)
    else:
        code = list(enumerate(text.splitlines(), 1))
    return [(number, found.group(0)) for number, line in code for found in _SPELLED.finditer(line)]
