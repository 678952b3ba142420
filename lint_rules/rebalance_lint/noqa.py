"""``# noqa`` exactly as flake8 reads it, so flake8, the CLI and the Spark job agree.

flake8 searches the comment in the *logical* physical-line group of the reported line
(a multi-line string or a backslash continuation counts as one group), accepts a bare
``# noqa`` or a code list, and matches a code by equality or prefix (``# noqa: KRB1``).
A line ``# flake8: noqa`` on its own switches the whole file off. The flake8 plugin
yields unfiltered findings and lets flake8 do this itself (so ``--disable-noqa`` works);
everyone else calls :func:`without_suppressed`.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable

from rebalance_lint.report import Finding

# Same patterns as flake8.defaults (NOQA_INLINE_REGEXP, NOQA_FILE) and flake8.utils.
_INLINE = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
_FILE = re.compile(r"\s*# flake8[:=]\s*noqa", re.IGNORECASE)
_SPLIT = re.compile(r"[,\s]")


def file_is_disabled(lines: Iterable[str]) -> bool:
    """True when a line is exactly ``# flake8: noqa`` (flake8 then skips the whole file)."""
    return any(_FILE.match(line) for line in lines)


def _line_groups(text: str, lines: list[str]) -> dict[int, str]:
    """Map each line number to the text flake8 searches for its noqa comment."""
    groups: dict[int, str] = {}
    first, last = len(lines) + 2, -1
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.ENDMARKER, tokenize.DEDENT):
                continue
            first, last = min(first, tok.start[0]), max(last, tok.end[0])
            if tok.type in (tokenize.NL, tokenize.NEWLINE):
                joined = "".join(lines[first - 1 : last])
                groups.update(dict.fromkeys(range(first, last + 1), joined))
                first, last = len(lines) + 2, -1
    except (tokenize.TokenError, SyntaxError):
        return {}
    return groups


def is_suppressed(code: str, searched: str) -> bool:
    """Does the noqa comment in ``searched`` (if any) cover ``code``?"""
    match = _INLINE.search(searched)
    if match is None:
        return False
    codes_str = match.group("codes")
    if codes_str is None:
        return True
    codes = {c.strip() for c in _SPLIT.split(codes_str) if c.strip()}
    return code in codes or code.startswith(tuple(codes))


def without_suppressed(findings: Iterable[Finding], text: str) -> tuple[Finding, ...]:
    """Drop the findings a ``# noqa`` comment covers; tokenizes only when one is present."""
    kept = tuple(findings)
    if not kept or "noqa" not in text.lower():
        return kept
    lines = io.StringIO(text, newline=None).readlines()  # flake8's lines: \n, \r\n, \r only
    if file_is_disabled(lines):
        return ()
    groups = _line_groups(text, lines)
    return tuple(
        f for f in kept if not is_suppressed(f.code, groups.get(f.line) or _physical(lines, f.line))
    )


def _physical(lines: list[str], line: int) -> str:
    """flake8's fallback when tokenizing fails: the physical line itself."""
    return lines[line - 1] if 0 < line <= len(lines) else ""
