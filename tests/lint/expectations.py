"""Read the expected findings written into fixture files as trailing comments."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
EXPECTED = re.compile(r"\b(KRB\d{3}): (\d+)(?: (bug|risk|advice)\b)?")


def expected_findings(source: bytes) -> set[tuple[int, int, str]]:
    """(line, col, code) from trailing ``# KRBnnn: col`` comments (col 0-based, as ast)."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    out: set[tuple[int, int, str]] = set()
    for number, line in enumerate(source.decode(encoding).splitlines(), start=1):
        _, hash_, comment = line.partition("#")
        if hash_:
            for code, col, _kind in EXPECTED.findall(comment):
                out.add((number, int(col), code))
    return out


def expected_kinds(source: bytes) -> dict[tuple[int, int, str], str]:
    """The kind written after the column (``# KRB110: 4 advice``), where one is written."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    out: dict[tuple[int, int, str], str] = {}
    for number, line in enumerate(source.decode(encoding).splitlines(), start=1):
        _, hash_, comment = line.partition("#")
        if hash_:
            for code, col, kind in EXPECTED.findall(comment):
                if kind:
                    out[number, int(col), code] = kind
    return out
