# ruff: noqa: E501  (sources and expected lines read best unwrapped)
"""A listener's callback guarding the consumer it reaches with a None or truth test
(held_out_9 026: a module's ``consumer = None``, set in ``main()`` before subscribing, and
``if commits and consumer is not None: consumer.commit(commits)`` in the revocation):
migrated, the test is of the view, which is neither None nor false, as the consumer was not
while the callbacks ran (``shapes/view_uses.py``). Where a function of the file sets that
consumer to None (a teardown before ``close()``, whose revocation the test then skips), the
listener stays refused as before."""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_lint import check_source

GLOBAL = """
from kafka import ConsumerRebalanceListener, KafkaConsumer

consumer = None
pending = {{}}


class Listener(ConsumerRebalanceListener):
    def on_partitions_revoked(self, revoked):
        if pending and {test}:
            consumer.commit(dict(pending))
        pending.clear()

    def on_partitions_assigned(self, assigned):
        pass


def main():
    global consumer
    consumer = KafkaConsumer(group_id="g")
    consumer.subscribe(["t"], listener=Listener())
{tail}"""

INJECTED = """
from kafka import ConsumerRebalanceListener, KafkaConsumer


class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer
        self.pending = {{}}

    def on_partitions_revoked(self, revoked):
        if {test}:
            self.consumer.commit(dict(self.pending))

    def on_partitions_assigned(self, assigned):
        pass

    def close(self):
        {close}


consumer = KafkaConsumer(group_id="g")
consumer.subscribe(["t"], listener=Listener(consumer))
"""


@pytest.mark.parametrize(
    ("test", "migrated"),
    [("consumer is not None", "consumer is not None"), ("None is not consumer", "None is not consumer"), ("consumer", "consumer")],
)
def test_a_global_consumer_tested_for_none_becomes_the_view(test: str, migrated: str) -> None:
    source = textwrap.dedent(GLOBAL.format(test=test, tail=""))
    result = migrate_source(source.encode(), "app.py")
    assert not result.manual and result.new_source is not None, result.manual
    after = result.new_source.decode()
    assert "    def on_partitions_revoked(self, revoked, rebalance_consumer: RebalanceConsumer):" in after
    assert f"        if pending and {migrated.replace('consumer', 'rebalance_consumer')}:\n            rebalance_consumer.commit(dict(pending))" in after
    # the revocation's commit also runs on loss (RebalanceListener's default): KRB104, the
    # advice the migrated listener gets anyway; nothing bypasses the view (no KRB112)
    assert [f.code for f in check_source(result.new_source, "app.py").findings] == ["KRB104"]
    assert migrate_source(result.new_source, "app.py").new_source is None, "idempotent"


def test_an_injected_consumer_tested_for_none_becomes_the_view() -> None:
    source = textwrap.dedent(INJECTED.format(test="self.consumer is not None and self.pending", close="pass"))
    result = migrate_source(source.encode(), "app.py")
    assert not result.manual and result.new_source is not None, result.manual
    after = result.new_source.decode()
    assert "        if consumer is not None and self.pending:\n            consumer.commit(dict(self.pending))" in after


@pytest.mark.parametrize(
    "source",
    [
        GLOBAL.format(test="consumer is not None", tail="    consumer.close()\n\n\ndef stop():\n    global consumer\n    consumer = None\n"),
        INJECTED.format(test="self.consumer is not None", close="self.consumer = None"),
    ],
    ids=["a global set to None by a function", "an attribute set to None outside __init__"],
)
def test_a_consumer_some_function_sets_to_none_stays_refused(source: str) -> None:
    result = migrate_source(textwrap.dedent(source).encode(), "app.py")
    assert result.new_source is None
    assert any("other than to call a method" in m.reason for m in result.manual), result.manual
