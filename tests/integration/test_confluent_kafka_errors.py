"""Issue 2, item 4d (confluent-kafka): stored views expire; callback errors reach poll().

Two members in one group: the first one's revoke callback raises while the second joins.
confluent raises it from the first member's ``poll()``; the group still completes the
rebalance (both members end up with partitions) and the first member's next callback runs.
"""

from __future__ import annotations

import pytest
from confluent_kafka import TopicPartition
from rebalance_guard import RebalanceViewExpiredError
from rebalance_guard.confluent_kafka import (
    Consumer,
    RebalanceConsumer,
    RebalanceListener,
    set_rebalance_listener,
)

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_support import (
    closing,
    config,
    partitions_of,
    poll_until,
)


class Storing(RebalanceListener):
    """Keeps the view (the KRB102 mistake) and fails the first revocation."""

    def __init__(self) -> None:
        self.stored: list[RebalanceConsumer] = []
        self.events: list[str] = []

    def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.events.append("assigned")
        self.stored.append(consumer)

    def on_partitions_revoked(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.events.append("revoked")
        if self.events.count("revoked") == 1:
            raise LookupError("revoke failed on purpose")


def test_stored_view_raises_and_callback_errors_reach_poll(broker: Broker) -> None:
    topic = broker.create_topic(2)
    conf = config(broker, broker.group())
    first, second = Consumer(conf), Consumer(conf)
    listener = Storing()
    set_rebalance_listener(first, listener)
    with closing([first, second]):
        first.subscribe([topic])
        poll_until([first], lambda: bool(first.assignment()), what="first assignment")

        with pytest.raises(RebalanceViewExpiredError) as info:
            listener.stored[0].commit(offsets=[TopicPartition(topic, 0, 1)])
        assert "commit()" in str(info.value)
        assert "Storing.on_partitions_assigned()" in str(info.value)

        second.subscribe([topic])
        with pytest.raises(LookupError, match="revoke failed on purpose"):
            poll_until([first, second], lambda: False, what="the revoke error from poll()")

        def both_own_partitions() -> bool:
            mine, theirs = partitions_of(first.assignment()), partitions_of(second.assignment())
            return mine | theirs == {0, 1} and bool(mine) and bool(theirs)

        poll_until([first, second], both_own_partitions, what="the completed rebalance")
    assert listener.events[:3] == ["assigned", "revoked", "assigned"]
