"""Issue 2 item 4(c): eager and cooperative-sticky rebalances through the guarded listener.

Eager (both majors): the member that already owns everything gets all of it revoked and its
new share assigned. Cooperative-sticky (kafka-python 3 only; 2.x has no cooperative
rebalancing, see COOPERATIVE_REASON): callbacks get only the delta, so the member revokes
just the partitions that move, is never asked to revoke what it keeps, and keeps its pause
on them; the newcomer gets the moved partitions unpaused.
"""

from __future__ import annotations

from typing import Any

import pytest
from rebalance_guard.kafka_python import RebalanceListener, set_rebalance_listener

from tests.integration.broker import Broker
from tests.integration.kafka_python_support import (
    COOPERATIVE_REASON,
    KP3,
    fleet,
    make_consumer,
    partitions_of,
)

pytestmark = pytest.mark.kafka_python

PARTITIONS = 4


class Deltas(RebalanceListener):
    """Records every callback's partitions; can pause everything it is first given."""

    def __init__(self, pause_first: bool) -> None:
        self.calls: list[tuple[str, frozenset[Any]]] = []
        self.pause_first = pause_first

    def on_partitions_assigned(self, partitions: Any, consumer: Any) -> None:
        if self.pause_first:
            self.pause_first = False
            consumer.pause(*partitions)
        self.calls.append(("assigned", frozenset(partitions)))

    def on_partitions_revoked(self, partitions: Any, consumer: Any) -> None:
        self.calls.append(("revoked", frozenset(partitions)))


@pytest.mark.parametrize("protocol", ["eager", "cooperative"])
def test_callbacks_see_the_whole_assignment_or_only_the_delta(
    broker: Broker, protocol: str
) -> None:
    if protocol == "cooperative" and not KP3:
        pytest.skip(COOPERATIVE_REASON)
    topic = broker.create_topic(partitions=PARTITIONS)
    everything = frozenset(partitions_of(topic, PARTITIONS))
    group_id = broker.group()
    old, new = Deltas(pause_first=True), Deltas(pause_first=False)
    with fleet() as group:
        first = make_consumer(broker.bootstrap, group_id, protocol)
        set_rebalance_listener(first, old)
        first.subscribe([topic])
        group.add(first)
        group.until(lambda: group.balanced(PARTITIONS), "one member")
        group.settle()
        assert first.paused() == everything
        old.calls.clear()

        second = make_consumer(broker.bootstrap, group_id, protocol)
        set_rebalance_listener(second, new)
        second.subscribe([topic])
        group.add(second)
        group.until(lambda: group.balanced(PARTITIONS), "two members")
        group.settle()
        kept, moved = frozenset(first.assignment()), frozenset(second.assignment())
        assert len(kept) == len(moved) == PARTITIONS // 2

        if protocol == "eager":
            assert old.calls == [("revoked", everything), ("assigned", kept)]
            assert first.paused() == set()  # all revoked: the pause went with them
        else:
            assert old.calls == [("revoked", moved)]  # only the delta; nothing assigned
            assert first.paused() == kept  # never revoked: still paused
        assert new.calls[-1] == ("assigned", moved)
        assert second.paused() == set()
