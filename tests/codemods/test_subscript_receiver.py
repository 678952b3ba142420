"""A confluent ``subscribe()`` on an item of a container of consumers (held_out_5 028, read
after its figure was recorded: ``consumers[topic].subscribe([topic], on_assign=assign_cb)`` in
a loop over the topics): the receiver is evaluated once, first, in the original and as
``subscribe()``'s first argument alike, so it is passed along as written
(migration_expressions.is_plain_reference). A key that calls something, or a callback that
(un)assigns through that same item, is refused."""

from __future__ import annotations

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.results import MigrationResult

SOURCE = """
from confluent_kafka import Consumer


def start(topics, config):
    consumers = {{}}

    def assign_cb(consumer, partitions):
        for partition in partitions:
            partition.offset = consumer.get_watermark_offsets(partition)[1]
        {assign}

    for topic in topics:
        consumers[topic] = Consumer(config)
        {receiver}.subscribe([topic], on_assign=assign_cb)
    return consumers
"""


def _migrate(receiver: str, assign: str = "consumer.assign(partitions)") -> MigrationResult:
    result = migrate_source(SOURCE.format(receiver=receiver, assign=assign).encode(), "app.py")
    assert result.status == "ok", result.reason
    return result


def test_an_item_of_a_dict_of_consumers_is_passed_along() -> None:
    result = _migrate("consumers[topic]")
    assert not result.manual, result.manual
    assert result.new_source is not None
    new = result.new_source.decode()
    assert "        subscribe(consumers[topic], [topic], RebalanceCallbacks())\n" in new
    assert (
        "            for partition in partitions:\n                consumer.seek(partition)\n"
        in new
    )
    assert migrate_source(result.new_source, "app.py").new_source is None  # idempotent


@pytest.mark.parametrize(
    ("receiver", "assign", "reason"),
    [
        (
            "consumers[str(topic)]",
            "consumer.assign(partitions)",
            "the consumer is not a plain name",
        ),
        (
            "consumers[topic]",
            "consumers[topic].incremental_assign(partitions)",
            "assign_cb calls consumers[topic].incremental_assign() on the registering consumer",
        ),
    ],
    ids=["key-calls", "assigns-through-the-item"],
)
def test_what_is_not_the_same_stays_refused(receiver: str, assign: str, reason: str) -> None:
    result = _migrate(receiver, assign)
    assert result.new_source is None
    assert any(reason in m.reason for m in result.manual), result.manual
