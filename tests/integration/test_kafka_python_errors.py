"""Issue 2 item 4(d): a stored view expires; a raising callback reaches poll(), once.

The revocation that fails here is a real one (a second member joins and takes partitions).
Left to itself, kafka-python 3 re-runs an eager ``on_partitions_revoked`` that raised on every
following poll and the member never rejoins; kafka-python 2 only logs the error. Through
rebalance_guard both majors complete the rebalance, run the assigned callback, and raise
``KafkaError("User rebalance callback throws an error")`` from the callback's exception from
exactly one poll().
"""

from __future__ import annotations

from typing import Any

import pytest
from kafka.errors import KafkaError
from rebalance_guard import RebalanceViewExpiredError
from rebalance_guard.kafka_python import RebalanceListener, set_rebalance_listener

from tests.integration.broker import Broker
from tests.integration.kafka_python_support import fleet, make_consumer

pytestmark = pytest.mark.kafka_python

PARTITIONS = 4


class FailsOnRealRevocation(RebalanceListener):
    """Keeps its views (a KRB102 bug) and raises on the first non-empty revocation."""

    def __init__(self) -> None:
        self.views: list[Any] = []
        self.calls: list[tuple[str, int]] = []
        self.failed = False

    def on_partitions_revoked(self, partitions: Any, consumer: Any) -> None:
        self.views.append(consumer)
        self.calls.append(("revoked", len(partitions)))
        if partitions and not self.failed:
            self.failed = True
            raise RuntimeError("could not flush state for the revoked partitions")

    def on_partitions_assigned(self, partitions: Any, consumer: Any) -> None:
        self.views.append(consumer)
        self.calls.append(("assigned", len(partitions)))


@pytest.mark.parametrize("first_joins", ["after the topic exists", "before the topic exists"])
def test_raising_revocation_surfaces_once_and_the_group_still_rebalances(
    broker: Broker, first_joins: str
) -> None:
    early = first_joins == "before the topic exists"
    topic = f"t-early-{broker.group()}" if early else broker.create_topic(partitions=PARTITIONS)
    group_id = broker.group()
    listener = FailsOnRealRevocation()
    with fleet() as group:
        # An early member is assigned nothing, then rejoins when its metadata shows the topic
        # (refreshed every 0.5 s here; the other case keeps kafka-python's defaults).
        quick: dict[str, Any] = {"metadata_max_age_ms": 500} if early else {}
        first = make_consumer(broker.bootstrap, group_id, **quick)
        set_rebalance_listener(first, listener)
        first.subscribe([topic])
        group.add(first)
        if early:
            group.until(lambda: listener.calls == [("revoked", 0), ("assigned", 0)], "empty join")
            broker.create_topic(partitions=PARTITIONS, name=topic)

        # A leader that lacks the new topic's metadata first assigns nothing and rejoins once it
        # arrives, so the one-member phase may hold one or two rebalances: count from its end
        # (the assigned callback, which runs on the poller thread after assignment() changes).
        def one_member() -> bool:
            return group.balanced(PARTITIONS) and listener.calls[-1:] == [("assigned", PARTITIONS)]

        group.until(one_member, "one member, all partitions assigned")
        joined = len(listener.calls)
        second = make_consumer(broker.bootstrap, group_id)
        second.subscribe([topic])
        group.add(second)
        group.until(lambda: group.balanced(PARTITIONS), "two members despite the error")
        group.settle(2.0)

        assert [(c is first, type(e)) for c, e in group.poll_errors] == [(True, KafkaError)]
        error = group.poll_errors[0][1]
        assert str(error) == "KafkaError: User rebalance callback throws an error"
        assert isinstance(error.__cause__, RuntimeError)
        assert "could not flush state" in str(error.__cause__)
        # Revoked once (not re-run on every poll), then the new share was still assigned.
        assert listener.calls[joined:] == [
            ("revoked", PARTITIONS),
            ("assigned", PARTITIONS // 2),
        ]

    stored = listener.views[joined]  # the failing on_partitions_revoked's view
    with pytest.raises(RebalanceViewExpiredError) as info:
        stored.commit()
    message = str(info.value)
    assert "commit() called on the rebalance view after" in message
    assert "FailsOnRealRevocation.on_partitions_revoked() returned" in message
    assert len({id(view) for view in listener.views}) == len(listener.views)  # one per callback
