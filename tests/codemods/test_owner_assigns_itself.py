# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""An owner's callback (un)assigning through the consumer the owner stored and registered it
on (REAL_WORLD: ``self.consumer.assign(partitions)`` in ``on_assign(self, con, partitions)``,
issue 25): where ``self.consumer`` is provably that consumer (every registration on it, one
store of a consumer into it), the call is the callback's ``consumer.assign(partitions)`` and
migrates as that one does (``shapes/owner_assigns_itself.py``: a seek per partition on the
view, a release dropped); refused, with its next step, where it is not provable."""

from __future__ import annotations

import pytest
from libcst.codemod import CodemodTest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.commands import MigrateRebalanceListeners
from rebalance_lint.api import check_source


class TestOwnerAssignsItself(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_an_assign_and_a_logged_release_on_the_stored_consumer(self) -> None:
        """app-corpus 052: bound to None first, to the consumer in another method."""
        before = """
            from confluent_kafka import Consumer


            class KafkaConsumer:
                def __init__(self):
                    self.consumer = None

                def on_assignment(self, con, partitions):
                    for p in partitions:
                        p.offset = 0
                    print(f"Assigned partitions {partitions}")
                    self.consumer.assign(partitions)

                def on_revoke(self, con, partitions):
                    self.consumer.unassign()
                    print(f"Unassigned partitions {partitions}")

                def create_consumer(self, conf):
                    self.consumer = Consumer(conf)

                def start_consuming(self, topic):
                    self.consumer.subscribe([topic], on_assign=self.on_assignment, on_revoke=self.on_revoke)
                    while True:
                        self.consumer.poll(2.0)
        """
        after = """
            from confluent_kafka import Consumer
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            class KafkaConsumer(RebalanceListener):
                def __init__(self):
                    self.consumer = None

                def on_partitions_assigned(self, partitions, con: RebalanceConsumer):
                    for p in partitions:
                        p.offset = 0
                    print(f"Assigned partitions {partitions}")
                    for partition in partitions:
                        con.seek(partition)

                def on_partitions_revoked(self, partitions, con: RebalanceConsumer):
                    print(f"Unassigned partitions {partitions}")

                def create_consumer(self, conf):
                    self.consumer = Consumer(conf)

                def start_consuming(self, topic):
                    subscribe(self.consumer, [topic], self)
                    while True:
                        self.consumer.poll(2.0)
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_an_awaited_incremental_assign_on_an_aio_consumer(self) -> None:
        before = """
            from confluent_kafka.aio import AIOConsumer


            class Service:
                def __init__(self, conf):
                    self._consumer = AIOConsumer(conf)

                async def _assigned(self, consumer, partitions):
                    if partitions:
                        await self._consumer.incremental_assign(partitions)

                async def run(self, topics):
                    await self._consumer.subscribe(topics, on_assign=self._assigned)
        """
        after = """
            from confluent_kafka.aio import AIOConsumer
            from rebalance_guard.confluent_kafka_aio import RebalanceConsumer, RebalanceListener, subscribe


            class Service(RebalanceListener):
                def __init__(self, conf):
                    self._consumer = AIOConsumer(conf)

                async def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                    if partitions:
                        for partition in partitions:
                            await consumer.seek(partition)

                async def run(self, topics):
                    await subscribe(self._consumer, topics, self)
        """
        self.assertCodemod(before, after, expected_warnings=[])


OWNER = """
from confluent_kafka import Consumer


class Worker:
    def __init__(self, conf):
        self.consumer = Consumer(conf)

    def start(self, topics):
        self.consumer.subscribe(topics, on_assign=self._on_assign)

    def _on_assign(self, _consumer, partitions):
        self.consumer.incremental_assign(partitions)
{extra}"""
ITSELF = (
    "_on_assign calls self.consumer.incremental_assign() on the registering consumer itself "
    "(line 13), which the adapter does after the callback; call it on the callback's consumer "
    "argument instead (consumer.incremental_assign(partitions) as its last statement) first"
)

REFUSED = [
    ("bound again in another method", "\n    def reconnect(self, conf):\n        self.consumer = Consumer(conf)\n", ITSELF),
    ("bound through another object", "\n\ndef swap(worker, other):\n    worker.consumer = other\n", ITSELF),
    ("set with setattr", "\n\ndef swap(worker, other):\n    setattr(worker, 'consumer', other)\n", ITSELF),
    ("a property of that name", "\n    @property\n    def consumer(self):\n        return Consumer({})\n", ITSELF),
    ("also called elsewhere", "\n\ndef again(worker, other):\n    worker._on_assign(other, [])\n",
     "_on_assign calls self.consumer.incremental_assign() on the registering consumer itself"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "extra", "reason"), REFUSED, ids=[r[0] for r in REFUSED])
def test_a_consumer_not_provably_the_registering_one_is_refused(
    name: str, extra: str, reason: str
) -> None:
    source = OWNER.replace("{extra}", extra)
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and result.new_source is None, result
    assert [m.line for m in result.manual] == [10], result.manual
    assert reason in result.manual[0].reason, result.manual


def test_bound_in_a_loop_is_refused() -> None:
    source = OWNER.replace(
        "        self.consumer = Consumer(conf)\n",
        "        for c in conf:\n            self.consumer = Consumer(c)\n",
    ).replace("{extra}", "")
    result = migrate_source(source.encode(), "app.py")
    assert result.new_source is None and len(result.manual) == 1, result
    assert "on the registering consumer itself (line 14)" in result.manual[0].reason


PLACED = [
    ("in a try's handler", "        try:\n            pass\n        except Exception:\n            self.consumer.incremental_assign(partitions)\n",
     "consumer.incremental_assign() is not a statement _on_assign runs at most once (it sits in a loop, an except, else or finally block or an expression) (line 16); call it once, outside those, then run migrate again"),
    ("other partitions", "        self.consumer.incremental_assign(partitions[:1])\n",
     "consumer.incremental_assign() does not assign exactly the callback's partitions, which the adapter assigns after the callback (line 13); assign those (pause on the view the ones not to be consumed), or use assign() without subscribe() for partitions of your choosing, then run migrate again"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "body", "reason"), PLACED, ids=[p[0] for p in PLACED])
def test_an_assign_the_view_cannot_take_is_refused_as_on_the_argument(
    name: str, body: str, reason: str
) -> None:
    """The refusals ``consumer.incremental_assign(...)`` on the callback's argument gets, naming
    the call as written."""
    source = OWNER.replace("        self.consumer.incremental_assign(partitions)\n", body)
    result = migrate_source(source.replace("{extra}", "").encode(), "app.py")
    assert result.new_source is None, result
    assert [m.reason for m in result.manual] == [reason.replace("consumer.", "self.consumer.", 1)]
    as_argument = source.replace("self.consumer.incremental_assign", "_consumer.incremental_assign")
    result = migrate_source(as_argument.replace("{extra}", "").encode(), "app.py")
    assert [m.reason for m in result.manual] == [reason]


def test_check_calls_the_site_fixable_and_nothing_is_left() -> None:
    source = OWNER.replace("{extra}", "")
    before = [f for f in check_source(source.encode(), "app.py").findings if f.code == "KRB203"]
    assert [f.fixable for f in before] == [True]
    result = migrate_source(source.encode(), "app.py")
    assert result.new_source is not None
    after = check_source(result.new_source, "app.py").findings
    assert not [f for f in after if f.code.startswith("KRB2") or f.code in ("KRB101", "KRB112")]
    assert migrate_source(result.new_source, "app.py").new_source is None
    assert (
        "    def on_partitions_assigned(self, partitions, _consumer: RebalanceConsumer):\n"
        "        for partition in partitions:\n"
        "            _consumer.seek(partition)\n"
    ) in result.new_source.decode()
