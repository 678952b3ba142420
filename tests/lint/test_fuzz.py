"""Property: no generated program crashes the rules (hypothesmith, bounded for CI time)."""

from __future__ import annotations

import textwrap

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rebalance_lint import check_source

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

CALLBACK_TEMPLATE = """\
from confluent_kafka import Consumer
from kafka import ConsumerRebalanceListener
from rebalance_guard.aiokafka import RebalanceListener


class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    def on_partitions_revoked(self, revoked):
{body}

class Guard(RebalanceListener):
    async def on_partitions_lost(self, partitions, consumer):
{body}

def on_assign(consumer, partitions):
{body}

Consumer({{}}).subscribe(["t"], on_assign=on_assign)
"""


def assert_no_crash(source: bytes) -> None:
    report = check_source(source, "<fuzz>")
    assert report.status != "crashed", report.reason
    assert "\n" not in report.reason


# hypothesmith compiles what it generates; its SyntaxWarnings are not ours.
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")


@FUZZ
@given(hypothesmith.from_grammar())
def test_any_module(code: str) -> None:
    assert_no_crash(b"# kafka\n" + code.encode("utf-8", "surrogatepass"))


@FUZZ
@given(hypothesmith.from_grammar(), st.sampled_from(["consumer", "self.consumer", "_"]))
def test_any_callback_body(code: str, receiver: str) -> None:
    body = textwrap.indent(code.replace("x", receiver) or "pass", " " * 8) + "\n        pass"
    assert_no_crash(CALLBACK_TEMPLATE.format(body=body).encode("utf-8", "surrogatepass"))
