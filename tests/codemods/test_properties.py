"""Properties of every migration: idempotent, parses, keeps comments, encoding, BOM, newlines.

Inputs are the legacy example programs and the refusal sources, varied by hypothesis: CRLF
or LF, a UTF-8 BOM or a PEP 263 latin-1 cookie, and comments (with non-ASCII text)
inserted at statement boundaries. Arbitrary Python from hypothesmith checks that bad or
unusual input is a status, never a crash, and that non-Kafka files never reach LibCST.
"""

from __future__ import annotations

import ast
import io
import tokenize

import hypothesmith
import libcst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rebalance_codemods.api import migrate_source
from rebalance_codemods.engine import migrate_bytes

from tests.codemods.examples import LEGACY, PROGRAMS
from tests.codemods.test_refusals import CASES

SOURCES = [(LEGACY / name).read_text() for name in PROGRAMS] + [case[1] for case in CASES]


def _logical_line_starts(text: str) -> list[int]:
    """0-based indexes of lines where a statement starts (safe places for a comment line)."""
    starts, expect = [], True
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            expect = True
        elif tok.type not in (tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER) and expect:
            starts.append(tok.start[0] - 1)
            expect = False
    return starts


def _comments(text: str) -> list[str]:
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return sorted(tok.string for tok in tokens if tok.type == tokenize.COMMENT)


@st.composite
def variants(draw: st.DrawFn) -> tuple[bytes, str, str]:
    """(file bytes, encoding, newline) of a legacy source with drawn cosmetic variations."""
    text = draw(st.sampled_from(SOURCES))
    lines = text.splitlines()
    starts = _logical_line_starts(text)
    for k, at in enumerate(
        sorted(draw(st.sets(st.sampled_from(starts), max_size=6)), reverse=True)
    ):
        indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
        lines.insert(at, f"{indent}# note {k}: café")
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    style = draw(st.sampled_from(["utf-8", "utf-8-sig", "latin-1"]))
    if style == "latin-1":
        lines.insert(0, "# -*- coding: latin-1 -*-")
    body = newline.join(lines) + newline
    return body.encode(style), style, newline


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variants())
def test_migration_properties(variant: tuple[bytes, str, str]) -> None:
    source, encoding, newline = variant
    result = migrate_source(source, "legacy.py")
    assert result.status == "ok", result.reason
    new = result.new_source
    if new is None:
        return
    # Encoding and BOM: the output decodes the same way and keeps the BOM exactly when present.
    assert new.startswith(b"\xef\xbb\xbf") == (encoding == "utf-8-sig")
    text = new.decode(encoding)
    ast.parse(text)
    # Line endings: all CRLF or all LF, like the input.
    if newline == "\r\n":
        assert new.count(b"\n") == new.count(b"\r\n")
    else:
        assert b"\r" not in new
    # Comments: every comment of the input is still there (non-ASCII ones included).
    old_comments = _comments(source.decode(encoding))
    new_comments = _comments(text)
    for comment in old_comments:
        assert comment in new_comments, comment
    # Idempotent: a second run has nothing left to do.
    again = migrate_source(new, "legacy.py")
    assert again.status == "ok" and again.new_source is None


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_arbitrary_python_is_a_status_never_a_crash(code: str) -> None:
    for source in (code, "import kafka\n" + code):
        result = migrate_source(source.encode(), "fuzz.py")
        assert result.status in {"ok", "syntax_error", "decode_error"}, result.reason
        if result.new_source is not None:
            libcst.parse_module(result.new_source)


def test_files_without_kafka_are_skipped_before_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_parsing(*args: object, **kwargs: object) -> None:
        raise AssertionError("LibCST parsed a file without Kafka")

    monkeypatch.setattr(libcst, "parse_module", no_parsing)
    for source in (b"import json\nprint(json.dumps({}))\n", b"def (:\n", b"\xff\xfe broken"):
        result = migrate_source(source, "other.py")
        assert (result.status, result.skipped, result.new_source) == ("ok", True, None)


def test_bad_input_is_a_status() -> None:
    assert migrate_source(b"import kafka\ndef (:\n").status == "syntax_error"
    assert migrate_source(b"import kafka\nx = '\xff'\n").status == "decode_error"
    assert migrate_source(b"# coding: nope\nimport kafka\n").status == "decode_error"
    huge = b"import kafka\n" + b"x = 1\n" * 1_000_000
    assert migrate_source(huge).status == "too_large"


@pytest.mark.parametrize("source", SOURCES, ids=range(len(SOURCES)))
def test_check_mode_plans_exactly_the_files_a_migration_changes(source: str) -> None:
    """``--check`` stops after planning; it must agree with a real run on every input."""
    full = migrate_source(source.encode(), "legacy.py")
    planned = migrate_bytes(source.encode(), "legacy.py", plan_only=True)
    assert planned.new_source is None
    assert (planned.migrated_sites > 0) == (full.new_source is not None)
    assert planned.manual == full.manual
