"""The examples of the pages, read from the markdown as a reader copies them: fenced blocks by language,
and what a Python line's trailing comment says it answers (`game.legal_moves(state)  # ['b2', 'b3', ...]`).

A comment that starts with a Python literal is a claim about the line's value (an assignment's: the value
assigned); `...` in it matches anything: a list ending in `...` is a prefix, a dict holds at least its
keys (`{'code': 'illegal-move', 'rule': ...}`, `{'status': 'finished', ...}`), a set is a mapping's keys
(with `...`: at least those), a string ending in `...` or `…` a prefix. Any other comment is prose."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
#: The pages: the front page and docs/ (the rules in docs/rules/ hold no code).
PAGES = [README, *sorted(DOCS.glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
#: No claim: the comment is prose.
PROSE = object()


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the block's first line of code
    language: str
    text: str

    def where(self, line: int = 1) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line + line - 1}"


def blocks(page: Path, language: str | None = None) -> list[Block]:
    """The fenced code blocks of a page (of one language), in page order."""
    text = page.read_text()
    found = [Block(page, text.count("\n", 0, match.start(2)) + 1, match.group(1), match.group(2))
             for match in FENCE.finditer(text)]
    return [block for block in found if language is None or block.language == language]


def prose_after(block: Block) -> str:
    """The page's paragraph right after a block: where a page says what the block answers."""
    text = block.page.read_text()
    end = text.index(block.text) + len(block.text)
    return text[end:].split("```", 1)[1].strip().split("\n\n", 1)[0]


def claim(comment: str) -> Any:
    """The value a comment says its line answers: its longest leading Python literal, else PROSE."""
    text = comment.lstrip("#").strip()
    for end in range(len(text), 0, -1):
        head = text[:end]
        # `{'status': 'finished', ...}` is no Python literal: a dict's `...` is dropped (dicts are subsets).
        for candidate in (head, re.sub(r",\s*\.\.\.\s*\}", "}", re.sub(r"\{\s*\.\.\.\s*,\s*", "{", head))):
            try:
                return ast.literal_eval(candidate)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
    return PROSE


def matches(pattern: Any, actual: Any) -> bool:
    """Whether `actual` is what a claim (see the module) says."""
    if pattern is Ellipsis:
        return True
    if isinstance(pattern, str) and pattern.endswith(("...", "…")):
        return isinstance(actual, str) and actual.startswith(pattern.rstrip(".…"))
    if isinstance(pattern, dict):
        return isinstance(actual, Mapping) and all(
            key in actual and matches(value, actual[key]) for key, value in pattern.items())
    if isinstance(pattern, set):
        if not isinstance(actual, Mapping):
            return False
        keys = pattern - {Ellipsis}
        return keys <= set(actual) if Ellipsis in pattern else keys == set(actual)
    if isinstance(pattern, (list, tuple)):
        if isinstance(actual, (str, bytes, Mapping)) or not isinstance(actual, Sequence):
            return False
        if isinstance(pattern, tuple) != isinstance(actual, tuple):
            return False
        if pattern and pattern[-1] is Ellipsis:
            head = pattern[:-1]
            return len(actual) >= len(head) and all(map(matches, head, actual[:len(head)]))
        return len(pattern) == len(actual) and all(map(matches, pattern, actual))
    if isinstance(pattern, bool) or isinstance(actual, bool):
        return pattern is actual
    if isinstance(pattern, (int, float)):
        return isinstance(actual, (int, float)) and pattern == actual
    return type(pattern) is type(actual) and pattern == actual


def comments(source: str) -> dict[int, str]:
    """Each line's comment, by line number."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {token.start[0]: token.string for token in tokens if token.type == tokenize.COMMENT}


def run_python(block: Block, namespace: dict[str, Any]) -> int:
    """Runs a block's statements in `namespace` as written, checking the claim of an expression's or an
    assignment's last line against its value (a compound statement's comments are prose); the number of
    claims checked."""
    said = comments(block.text)
    checked = 0
    for statement in ast.parse(block.text).body:
        module = ast.Module([statement], type_ignores=[])
        where = block.where(statement.lineno)
        if isinstance(statement, ast.Expr):
            value = eval(compile(ast.Expression(statement.value), where, "eval"), namespace)
        else:
            exec(compile(module, where, "exec"), namespace)  # noqa: S102 - the page's example, as written
            targets = statement.targets if isinstance(statement, ast.Assign) else []
            value = namespace[targets[0].id] if len(targets) == 1 and isinstance(targets[0], ast.Name) else None
        comment = said.get(statement.end_lineno or statement.lineno)
        simple = isinstance(statement, (ast.Expr, ast.Assign))
        pattern = PROSE if comment is None or not simple else claim(comment)
        if pattern is not PROSE:
            assert matches(pattern, value), f"{where}: the page says {comment!r}; it answers {value!r}"
            checked += 1
    return checked
