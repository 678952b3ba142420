"""A consumer whose class defines its own ``subscribe()`` keeps its registration as written.

Moving ``listener=`` out of ``subscribe()`` into ``set_rebalance_listener()`` is only safe on
the client's own ``subscribe()``. A ``KafkaConsumer`` subclass (REAL_WORLD.md: a consumer
subclass that wraps its listener) may wrap what it gets: ``subscribe(topics, listener=None)``
then registers its wrapper around ``None`` over the one ``set_rebalance_listener()`` set, and
the migrated listener never runs (found by benchmarks/real_world_corpus/streamkit). confluent
callbacks likewise: the adapter calls the receiver's ``subscribe()`` with ``on_assign=``,
``on_revoke=`` and ``on_lost=``, which a proxy may not take (feature-pipeline's
``ConsumerProxy``: a TypeError at run time, once migrated).
"""

from __future__ import annotations

import textwrap

from rebalance_codemods.api import migrate_source
from rebalance_codemods.repository import migrate_repository
from rebalance_lint.api import check_repository

LISTENER = """
from kafka import ConsumerRebalanceListener, KafkaConsumer
from kit.consumer import Tracked


class Committer(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    def on_partitions_revoked(self, revoked):
        self.consumer.commit()

    def on_partitions_assigned(self, assigned):
        pass
"""


def _reasons(source: str) -> list[tuple[int, str]]:
    result = migrate_source(textwrap.dedent(source).encode(), "worker.py")
    assert result.status == "ok", result.reason
    assert result.new_source is None, "the file must stay byte-identical"
    return [(site.line, site.reason) for site in result.manual]


def test_an_imported_consumer_class_a_single_file_run_cannot_see_is_refused() -> None:
    reasons = _reasons(
        LISTENER + "\nconsumer = Tracked(group_id='g')\n"
        "consumer.subscribe(['a'], listener=Committer(consumer))\n"
    )
    assert (
        17,
        "the consumer is a Tracked (imported from kit.consumer), whose subscribe() this run "
        "cannot see, which may wrap or forward listener=; registering the listener with "
        "set_rebalance_listener() would bypass it: register the migrated listener inside that "
        "subscribe() by hand",
    ) in reasons, reasons
    assert any(line == 6 and "Committer" in why for line, why in reasons), reasons  # not alone


def test_the_same_on_self_attributes() -> None:
    reasons = _reasons(
        LISTENER
        + textwrap.dedent("""
        class Service:
            def __init__(self):
                self.consumer = Tracked(group_id='g')
                self.consumer.subscribe(['a'], listener=Committer(self.consumer))
        """)
    )
    assert any("Tracked (imported from kit.consumer)" in why for _, why in reasons), reasons


def test_the_clients_own_consumer_class_still_migrates() -> None:
    source = (
        LISTENER.replace("from kit.consumer import Tracked\n", "")
        + "\nconsumer = KafkaConsumer(group_id='g')\n"
        + "consumer.subscribe(['a'], listener=Committer(consumer))\n"
    )
    result = migrate_source(source.encode(), "worker.py")
    assert result.new_source is not None, result.manual
    assert "set_rebalance_listener(consumer, Committer())" in result.new_source.decode()


def test_repository_mode_sees_the_subclass_in_another_module() -> None:
    """The streamkit shape: the subclass in consumer.py, the registration in stream.py."""
    files = {
        "kit/__init__.py": b"",
        "kit/consumer.py": (
            b"from kafka import KafkaConsumer\n\n\n"
            b"class Tracked(KafkaConsumer):\n"
            b"    def subscribe(self, topics=(), pattern=None, listener=None):\n"
            b"        return super().subscribe(topics, pattern, Wrapper(listener))\n"
        ),
        "kit/stream.py": (
            b"from kafka import ConsumerRebalanceListener\n\n"
            b"from .consumer import Tracked\n\n\n"
            b"class Committer(ConsumerRebalanceListener):\n"
            b"    def __init__(self, consumer):\n"
            b"        self.consumer = consumer\n\n"
            b"    def on_partitions_revoked(self, revoked):\n"
            b"        self.consumer.commit()\n\n"
            b"    def on_partitions_assigned(self, assigned):\n"
            b"        pass\n\n\n"
            b"class Stream:\n"
            b"    def __init__(self):\n"
            b"        self.consumer = Tracked(group_id='g')\n"
            b"        self.consumer.subscribe(['a'], listener=Committer(self.consumer))\n"
        ),
    }
    done = migrate_repository(files)
    assert done.pending == set(), "nothing may be rewritten"
    manual = [(s.line, s.reason) for s in done.results["kit/stream.py"].manual]
    assert any(
        line == 20 and "Tracked.subscribe() (kit/consumer.py:5)" in why for line, why in manual
    ), manual
    findings = [f for f in check_repository(files)["kit/stream.py"].findings if f.code >= "KRB2"]
    assert findings, "the legacy listener is still reported"
    assert not any(f.fixable for f in findings), findings  # check agrees with migrate


PROXY = (
    b"from confluent_kafka import Consumer\n\n\n"
    b"class ConsumerProxy:\n"
    b"    def __init__(self, consumer):\n"
    b"        self._consumer = consumer\n\n"
    b"    def subscribe(self, topics, on_assign=lambda c, p: None, on_revoke=lambda c, p: None):\n"
    b"        self._consumer.subscribe(topics, on_assign, on_revoke)\n\n"
    b"    def poll(self, timeout):\n"
    b"        return self._consumer.poll(timeout)\n"
)

BACKFILL = (
    b"from confluent_kafka import Consumer\n\n"
    b"from .kafka_utils import ConsumerProxy\n\n\n"
    b"class BackfillStage:\n"
    b"    def __init__(self, conf):\n"
    b"        self.consumer = ConsumerProxy(Consumer(conf))\n\n"
    b"    def run(self, topics):\n"
    b"        self.consumer.subscribe(topics, on_revoke=lambda c, p: c.commit())\n"
)


def test_confluent_callbacks_on_a_proxy_with_its_own_subscribe_stay() -> None:
    """feature-pipeline's ConsumerProxy: the adapter would call its subscribe() with on_lost=,
    which it does not take (a TypeError at run time); the registration stays as written."""
    done = migrate_repository(
        {"fp/__init__.py": b"", "fp/kafka_utils.py": PROXY, "fp/offline.py": BACKFILL}
    )
    assert done.pending == set(), "nothing may be rewritten"
    manual = [(s.line, s.reason) for s in done.results["fp/offline.py"].manual]
    assert any(
        line == 11
        and "ConsumerProxy.subscribe() (fp/kafka_utils.py:8)" in why
        and "on_lost=" in why
        for line, why in manual
    ), manual
    findings = check_repository(
        {"fp/__init__.py": b"", "fp/kafka_utils.py": PROXY, "fp/offline.py": BACKFILL}
    )["fp/offline.py"].findings
    assert [f for f in findings if f.code >= "KRB2"], "the callback is still reported"
    assert not any(f.fixable for f in findings if f.code >= "KRB2"), findings


def test_a_relatively_imported_proxy_a_single_file_run_cannot_see_is_refused() -> None:
    result = migrate_source(BACKFILL, "fp/offline.py")
    assert result.status == "ok", result.reason
    assert result.new_source is None, "the file must stay byte-identical"
    reasons = [(site.line, site.reason) for site in result.manual]
    assert any(
        line == 11 and "ConsumerProxy (imported from .kafka_utils), whose subscribe()" in why
        for line, why in reasons
    ), reasons


def test_confluent_callbacks_on_the_clients_consumer_still_migrate() -> None:
    source = BACKFILL.replace(b"ConsumerProxy(Consumer(conf))", b"Consumer(conf)")
    result = migrate_source(source, "fp/offline.py")
    assert result.new_source is not None, result.manual
