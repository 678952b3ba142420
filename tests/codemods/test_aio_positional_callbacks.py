# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""Callbacks passed positionally to confluent's ``AIOConsumer.subscribe()`` (issue 25;
REAL_WORLD: ``await consumer.subscribe([topic], None, on_revoke_digest)``): an ``async def``
there never runs (KRB111); migrated as the keyword shape is, positions mapped to
``on_assign``/``on_revoke``/``on_lost``, it runs, awaited
(``shapes/aio_positional_callbacks.py``). A plain def passed positionally runs today with
the underlying Consumer: refused, with the step. A ``None`` in a position (REAL_WORLD's own
form) is refused: the underlying ``Consumer.subscribe()`` raises TypeError on it (each
callback must be callable or left out; shown below on the real client), so migrating it would
make a failing subscribe() work."""

from __future__ import annotations

import pytest
from libcst.codemod import CodemodTest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.commands import MigrateRebalanceListeners
from rebalance_lint.api import check_source


class TestAioPositionalCallbacks(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_every_position(self) -> None:
        before = """
            from confluent_kafka.aio import AIOConsumer


            async def assigned(consumer, partitions):
                await consumer.pause(partitions)


            async def revoked(consumer, partitions):
                await consumer.commit(asynchronous=False)


            async def main(topics):
                consumer = AIOConsumer({"group.id": "g"})
                await consumer.subscribe(topics, assigned, revoked, revoked)
        """
        after = """
            from confluent_kafka.aio import AIOConsumer
            from rebalance_guard.confluent_kafka_aio import RebalanceConsumer, RebalanceListener, subscribe


            class RebalanceCallbacks(RebalanceListener):
                async def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                    await consumer.pause(partitions)

                async def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):
                    await consumer.commit(asynchronous=False)


            async def main(topics):
                consumer = AIOConsumer({"group.id": "g"})
                await subscribe(consumer, topics, RebalanceCallbacks())
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_owner_methods_in_positions(self) -> None:
        before = """
            from confluent_kafka.aio import AIOConsumer


            class Worker:
                def __init__(self, conf):
                    self.consumer = AIOConsumer(conf)

                async def _on_assigned(self, consumer, partitions):
                    print("assigned", partitions)

                async def start(self, topics):
                    await self.consumer.subscribe(topics, self._on_assigned)
        """
        after = """
            from confluent_kafka.aio import AIOConsumer
            from rebalance_guard.confluent_kafka_aio import RebalanceConsumer, RebalanceListener, subscribe


            class Worker(RebalanceListener):
                def __init__(self, conf):
                    self.consumer = AIOConsumer(conf)

                async def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                    print("assigned", partitions)

                async def start(self, topics):
                    await subscribe(self.consumer, topics, self)
        """
        self.assertCodemod(before, after, expected_warnings=[])


HEAD = """
import functools

from confluent_kafka.aio import AIOConsumer


def revoked(consumer, partitions):
    consumer.commit(asynchronous=False)


class Worker:
    def __init__(self):
        self.consumer = AIOConsumer({})

    def _revoked(self, consumer, partitions):
        pass

    async def start(self, topics):
        await self.consumer.subscribe(topics, {value})
"""
SYNC = [
    ("a plain def", "revoked"),
    ("a lambda", "lambda c, p: None"),
    ("a partial of a plain def", "functools.partial(revoked)"),
    ("an owner's plain method", "self._revoked"),
]


@pytest.mark.parametrize(("name", "value"), SYNC, ids=[s[0] for s in SYNC])
def test_a_plain_def_passed_positionally_is_refused(name: str, value: str) -> None:
    source = HEAD.replace("{value}", value)
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and result.new_source is None, result
    assert [m.reason for m in result.manual] == [
        f"on_assign= {value} is passed positionally to AIOConsumer.subscribe(), which runs a "
        "plain def synchronously with the underlying Consumer; the migrated listener's methods "
        "are async def taking the async view: make it async def awaiting the consumer's calls "
        "and pass it by keyword (on_assign=...) first"
    ]


def test_check_agrees_krb111_and_krb203_are_gone() -> None:
    source = HEAD.replace("def revoked", "async def revoked").replace("{value}", "revoked")
    source = source.replace("    consumer.commit(", "    await consumer.commit(")
    before = {f.code: f.fixable for f in check_source(source.encode(), "app.py").findings}
    assert before.get("KRB111") is not None and before.get("KRB203") is True, before
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and not result.manual and result.new_source is not None
    after = {f.code for f in check_source(result.new_source, "app.py").findings}
    assert not after & {"KRB111", "KRB203"}, after
    assert migrate_source(result.new_source, "app.py").new_source is None


@pytest.mark.parametrize("positions", ["None, revoked", "None, None, revoked"])
def test_a_none_in_a_position_is_refused(positions: str) -> None:
    """REAL_WORLD's ``subscribe([topic], None, on_revoke_digest)``: AIOConsumer hands its
    positional arguments to ``Consumer.subscribe()``, which raises TypeError on None (the next
    test shows it on the real client): that subscribe() never worked."""
    source = HEAD.replace("def revoked", "async def revoked").replace("{value}", positions)
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and result.new_source is None, result
    assert [m.reason for m in result.manual] == [
        "None in on_assign's position is not a callback: confluent's subscribe() raises "
        "TypeError (on_assign expects a callable; AIOConsumer given it by keyword fails at the "
        "first rebalance instead); drop it (pass the callbacks after it by keyword), then run "
        "migrate again"
    ]


def test_the_client_rejects_a_positional_none() -> None:
    """The premise, on confluent-kafka itself (no broker needed: the check comes first)."""
    import confluent_kafka

    consumer = confluent_kafka.Consumer({"group.id": "g", "bootstrap.servers": "127.0.0.1:9"})
    try:
        with pytest.raises(TypeError, match="on_assign expects a callable"):
            consumer.subscribe(["t"], None, lambda c, p: None)
    finally:
        consumer.close()
