# ruff: noqa: E501  (a table of small sources and their rewrites, one per line, reads best unwrapped)
"""kafka-python 3's AsyncConsumerRebalanceListener migrated to AsyncRebalanceListener (#25 item 2).

The fixture pair (fixtures/kafka_python_async_listener.py and its migrated twin) is checked by
test_fixtures.py and test_migrated_type_checks.py and run on the broker by
tests/integration/test_kafka_python_async_migrated.py; here: where ``await`` goes, and every
refusal of the shape (the file byte-identical, the reason with its next step).
"""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source

HEAD = """\
from kafka import KafkaConsumer
from kafka.consumer.subscription_state import AsyncConsumerRebalanceListener


class Listener(AsyncConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

"""
TAIL = """

consumer = KafkaConsumer(group_id="g")
consumer.subscribe(["a"], listener=Listener(consumer))
"""


def source(methods: str, helper: str = "") -> str:
    body = textwrap.indent(textwrap.dedent(methods).strip("\n"), "    ")
    return HEAD + body + "\n" + ("\n\n" + helper if helper else "") + TAIL


def migrated(methods: str) -> str:
    result = migrate_source(source(methods).encode(), "listener.py")
    assert result.status == "ok" and not result.manual, result.manual
    assert result.new_source is not None
    again = migrate_source(result.new_source, "listener.py")
    assert again.new_source is None and not again.manual  # idempotent
    return result.new_source.decode()


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("self.consumer.commit()", "await consumer.commit()"),
        ("x = self.consumer.position(tp)", "x = await consumer.position(tp)"),
        ("self.consumer.position(tp).bit_length()", "(await consumer.position(tp)).bit_length()"),
        ("self.consumer.end_offsets([tp])[tp]", "(await consumer.end_offsets([tp]))[tp]"),
        ("f(self.consumer.committed(tp))", "f(await consumer.committed(tp))"),
        ("{t: self.consumer.committed(t) for t in p}", "{t: await consumer.committed(t) for t in p}"),
        ("await self.consumer.commit()", "await consumer.commit()"),
        ("await self.consumer.commit_async()", "await consumer.commit_async()"),
        ("self.consumer.commit_async()", "consumer.commit_async()"),
        ("self.consumer.seek(tp, 5)", "consumer.seek(tp, 5)"),
        ("self.consumer.pause(*self.consumer.assignment())",
         "consumer.pause(*consumer.assignment())"),
        ("print('revoked', self.consumer)", "print('revoked', consumer)"),
    ],
)  # fmt: skip
def test_calls_that_are_coroutines_on_the_async_view_are_awaited(before: str, after: str) -> None:
    out = migrated(f"async def on_partitions_revoked(self, p):\n    {before}\n")
    assert f"    {after}\n" in out
    assert "class Listener(AsyncRebalanceListener):" in out
    assert "async def on_partitions_revoked(self, p, consumer: AsyncRebalanceConsumer):" in out
    assert (
        "from rebalance_guard.kafka_python import AsyncRebalanceConsumer, "
        "AsyncRebalanceListener, set_rebalance_listener" in out
    )
    assert "AsyncConsumerRebalanceListener" not in out and "self.consumer" not in out


def test_a_listener_reaching_no_consumer_keeps_its_no_op_callbacks() -> None:
    out = migrated("async def on_partitions_assigned(self, assigned):\n    print(assigned)\n")
    assert "class Listener(AsyncRebalanceListener):" in out
    assert (
        "async def on_partitions_assigned(self, assigned, consumer: AsyncRebalanceConsumer)" in out
    )


def test_lost_calling_revoked_passes_the_view() -> None:
    out = migrated(
        """
        async def on_partitions_revoked(self, p):
            self.consumer.commit()

        async def on_partitions_lost(self, p):
            await self.on_partitions_revoked(p)
        """
    )
    assert "await self.on_partitions_revoked(p, consumer=consumer)" in out


@pytest.mark.parametrize(
    ("methods", "reason"),
    [
        ("def on_partitions_revoked(self, p):\n    self.consumer.commit_async()",
         "on_partitions_revoked is a plain def (kafka-python calls it on its IO loop, where a "
         "blocking consumer call raises); make it async def, or derive from "
         "ConsumerRebalanceListener, then run migrate again"),
        ("async def on_partitions_revoked(self, p):\n    def go():\n        self.consumer.commit()\n    go()",
         "calls consumer.commit() inside a nested function (line 11)"),
        ("async def on_partitions_revoked(self, p):\n    print(sum(self.consumer.position(t) for t in p))",
         "calls consumer.position() inside a generator expression (line 10), where an await "
         "would make it an async generator; use a list comprehension or a loop, then run "
         "migrate again"),
        ("async def on_partitions_revoked(self, p):\n    flush(self.consumer, p)",
         "hands the consumer on (line 10); on the async view its blocking methods are "
         "coroutines the receiver would have to await"),
        ("async def on_partitions_revoked(self, p):\n    self.consumer.poll(0)",
         "which the rebalance view does not offer"),
    ],
    ids=["def-callback", "nested-function", "generator", "helper", "poll"],
)  # fmt: skip
def test_refusals_leave_the_file_alone_and_say_what_to_do(methods: str, reason: str) -> None:
    helper = (
        "def flush(consumer, partitions):\n    consumer.commit()\n" if "flush" in methods else ""
    )
    text = source(methods, helper)
    result = migrate_source(text.encode(), "listener.py")
    assert result.status == "ok" and result.new_source is None
    assert result.manual, "nothing reported"
    assert all(reason in m.reason for m in result.manual), result.manual
    assert {m.line for m in result.manual} == {5, text.count("\n")}  # the class, its subscribe
