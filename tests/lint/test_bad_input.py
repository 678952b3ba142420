"""check_source never raises: bad bytes become a status with a one-line reason."""

from __future__ import annotations

import pytest
from rebalance_lint import check_source, mentions_kafka
from rebalance_lint.api import MAX_SOURCE_BYTES

LISTENER = b"""\
from confluent_kafka import Consumer

def on_revoke(consumer, partitions):
    consumer.poll(0)

Consumer({}).subscribe(["t"], on_revoke=on_revoke)
"""


def one_line(reason: str) -> bool:
    return bool(reason) and "\n" not in reason and "Traceback" not in reason


def test_files_without_kafka_are_skipped_before_parsing() -> None:
    report = check_source(b"def broken(:\n")  # would be a syntax error if parsed
    assert report.status == "ok" and report.skipped and not report.findings
    assert not mentions_kafka(b"import os\n")
    assert mentions_kafka(b"from aiokafka import AIOKafkaConsumer\n")


def test_syntax_error() -> None:
    report = check_source(b"import kafka\ndef f(:\n    pass\n", "broken.py")
    assert report.status == "syntax_error"
    assert one_line(report.reason) and "line 2" in report.reason


def test_undecodable_bytes() -> None:
    report = check_source(b"import kafka\nname = '\xff\xfe'\n")
    assert report.status == "decode_error"
    assert one_line(report.reason) and "line 2" in report.reason and "utf-8" in report.reason


def test_unknown_coding_cookie() -> None:
    report = check_source(b"# -*- coding: klingon -*-\nimport kafka\n")
    assert report.status == "decode_error" and one_line(report.reason)
    assert "klingon" in report.reason


def test_bom_with_conflicting_cookie() -> None:
    report = check_source(b"\xef\xbb\xbf# coding: latin-1\nimport kafka\n")
    assert report.status == "decode_error" and one_line(report.reason)


def test_coding_cookie_is_honoured() -> None:
    source = b"# coding: cp1252\n# \x80 kafka\n" + LISTENER
    report = check_source(source)
    assert report.status == "ok"
    assert [f.code for f in report.findings] == ["KRB101", "KRB203"]


def test_bom_is_honoured() -> None:
    report = check_source(b"\xef\xbb\xbf" + LISTENER)
    assert report.status == "ok"
    assert [(f.line, f.code) for f in report.findings] == [(4, "KRB101"), (6, "KRB203")]


def test_too_large() -> None:
    source = b"import kafka\n" + b"x = 1\n" * (MAX_SOURCE_BYTES // 6 + 1)
    report = check_source(source)
    assert report.status == "too_large" and one_line(report.reason)
    assert str(MAX_SOURCE_BYTES) in report.reason


@pytest.mark.parametrize(
    "source",
    [
        b"import kafka\nx = " + b"(" * 300 + b")" * 300 + b"\n",
        b"import kafka\nx = " + b"-" * 200_000 + b"1\n",
        b"import kafka\nx = " + b"[" * 100_000 + b"]" * 100_000 + b"\n",
        b"import kafka\n"
        + b"".join(b" " * i + b"if x:\n" for i in range(120))
        + b" " * 120
        + b"pass\n",
    ],
    ids=["parens", "unary", "lists", "blocks"],
)
def test_deep_nesting_is_a_status_not_a_crash(source: bytes) -> None:
    report = check_source(source)
    assert report.status in ("ok", "syntax_error", "too_large"), report.reason
    if report.status != "ok":
        assert one_line(report.reason)


def test_deeply_nested_attribute_chain_in_a_callback() -> None:
    chain = "consumer" + ".a" * 5000
    source = LISTENER.replace(b"consumer.poll(0)", f"{chain}.poll(0)".encode())
    report = check_source(source)
    assert report.status in ("ok", "too_large"), report.reason


def test_null_bytes() -> None:
    report = check_source(b"import kafka\nx = 1\x00\n")
    assert report.status == "syntax_error" and one_line(report.reason)
