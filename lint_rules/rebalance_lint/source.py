"""Turn a file's bytes into text and a tree, or into a one-line reason why not.

Decoding follows the interpreter (PEP 263 coding cookie, UTF-8 BOM), so a file Python can
run is a file we can check, and one it cannot gets the same diagnosis.
"""

from __future__ import annotations

import ast
import io
import tokenize
import warnings
from dataclasses import dataclass

from rebalance_lint.report import FileStatus


@dataclass(frozen=True)
class Parsed:
    """A decoded, parsed file."""

    text: str
    tree: ast.Module


@dataclass(frozen=True)
class Unparsable:
    """Why a file could not be decoded or parsed."""

    status: FileStatus
    reason: str


def decode(source: bytes) -> str | Unparsable:
    """Decode like the interpreter does; a bad cookie or bad bytes give a decode_error."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    except SyntaxError as exc:  # unknown codec, BOM with a non-UTF-8 cookie, bad cookie
        return Unparsable("decode_error", f"cannot decode: {exc.msg}")
    try:
        return source.decode(encoding)
    except UnicodeDecodeError as exc:
        line = source.count(b"\n", 0, exc.start) + 1
        return Unparsable(
            "decode_error",
            f"cannot decode line {line} as {encoding}: {exc.reason} "
            f"(byte {source[exc.start : exc.start + 1]!r}); declare the encoding with a "
            f"'# -*- coding: ... -*-' line or save the file as UTF-8",
        )
    except LookupError as exc:  # defensive: detect_encoding already validated the codec
        return Unparsable("decode_error", f"cannot decode: {exc}")


def parse(text: str, filename: str) -> Parsed | Unparsable:
    """Parse decoded text; syntax errors and pathological nesting become statuses."""
    try:
        with warnings.catch_warnings():  # SyntaxWarnings are the compiler's business, not ours
            warnings.simplefilter("ignore")
            tree = ast.parse(text, filename=filename)
    except SyntaxError as exc:
        where = f"line {exc.lineno}" + (f", column {exc.offset}" if exc.offset else "")
        return Unparsable("syntax_error", f"syntax error at {where}: {exc.msg}")
    except ValueError as exc:  # e.g. null bytes on older interpreters
        return Unparsable("syntax_error", f"syntax error: {exc}")
    except (RecursionError, MemoryError):
        return Unparsable("too_large", "too deeply nested for the Python parser to analyse")
    return Parsed(text, tree)


def load(source: bytes, filename: str) -> Parsed | Unparsable:
    """Decode, then parse."""
    text = decode(source)
    if isinstance(text, Unparsable):
        return text
    return parse(text, filename)
