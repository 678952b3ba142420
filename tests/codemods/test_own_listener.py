"""A consumer wrapper that is its own listener (REAL_WORLD.md, "Reaching the consumer"):
``self._consumer.subscribe(topics, listener=self)`` in a method of a client listener class.

Every instance registers itself, so where it is created does not matter (before: refused as
"the instance created at line N is not registered"); the callbacks' calls on the registering
attribute become calls on the view; the registration moves to ``set_rebalance_listener``.
"""

from __future__ import annotations

import textwrap

from rebalance_codemods.api import migrate_source
from rebalance_codemods.repository import migrate_repository
from rebalance_lint import check_repository, check_source

AIOKAFKA_WORKER = """\
import aiokafka


class Worker(aiokafka.ConsumerRebalanceListener):
    def __init__(self, topics):
        self.topics = topics

    async def start(self):
        self._consumer = aiokafka.AIOKafkaConsumer(group_id="g")
        self._consumer.subscribe(topics=self.topics, listener=self)
        await self._consumer.start()

    async def on_partitions_revoked(self, revoked):
        await self._consumer.commit()

    async def on_partitions_assigned(self, assigned):
        for tp in assigned:
            print(tp, await self._consumer.committed(tp))


async def main():
    worker = Worker(["a"])
    await worker.start()
"""

AIOKAFKA_MIGRATED = """\
import aiokafka
from rebalance_guard.aiokafka import RebalanceConsumer, RebalanceListener, set_rebalance_listener


class Worker(RebalanceListener):
    def __init__(self, topics):
        self.topics = topics

    async def start(self):
        self._consumer = aiokafka.AIOKafkaConsumer(group_id="g")
        set_rebalance_listener(self._consumer, self)
        self._consumer.subscribe(topics=self.topics)
        await self._consumer.start()

    async def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
        await consumer.commit()

    async def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
        for tp in assigned:
            print(tp, await consumer.committed(tp))


async def main():
    worker = Worker(["a"])
    await worker.start()
"""

KAFKA_PYTHON_TAILER = """\
from kafka import ConsumerRebalanceListener, KafkaConsumer


class Tailer(ConsumerRebalanceListener):
    def __init__(self, topics, **config):
        self._consumer = KafkaConsumer(**config)
        self._topics = topics
        self.paused = False

    def run(self):
        self._consumer.subscribe(self._topics, None, self)
        for record in self._consumer:
            print(record)

    def on_partitions_revoked(self, revoked):
        self._consumer.commit()
        self.paused = False

    def on_partitions_assigned(self, assigned):
        pass
"""


def _migrated(source: str) -> str:
    result = migrate_source(source.encode(), "worker.py")
    assert result.status == "ok" and not result.manual, result.manual
    assert result.new_source is not None
    return result.new_source.decode()


def test_an_aiokafka_worker_registering_itself_is_migrated() -> None:
    codes = {(f.line, f.code, f.fixable) for f in check_source(AIOKAFKA_WORKER.encode()).findings}
    assert codes == {(4, "KRB202", True), (10, "KRB203", True), (10, "KRB201", True)}
    new = _migrated(AIOKAFKA_WORKER)
    assert new == AIOKAFKA_MIGRATED
    assert migrate_source(new.encode(), "worker.py").new_source is None  # idempotent
    assert [f.code for f in check_source(new.encode()).findings] == []


def test_a_kafka_python_tailer_registering_itself_positionally_is_migrated() -> None:
    new = _migrated(KAFKA_PYTHON_TAILER)
    assert "class Tailer(RebalanceListener):" in new
    assert "        set_rebalance_listener(self._consumer, self)\n" in new
    assert "        self._consumer.subscribe(self._topics, None)\n" in new
    assert "    def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):\n" in new
    assert "        consumer.commit()\n        self.paused = False\n" in new
    assert "for record in self._consumer:" in new  # the wrapper's own use is kept
    assert [f.code for f in check_source(new.encode()).findings] == []


def test_a_wrapper_created_with_keyword_unpacking_is_migrated() -> None:
    """Its creations pass nothing the migration reads (it registers itself on the consumer it
    makes), so ``Tailer(topics, **config)`` no longer refuses it (development 030); a listener
    registered by its creator still is, since the consumer it gets may be among the unpacked
    arguments (tests/codemods/test_refusals.py, star-instantiation)."""
    source = KAFKA_PYTHON_TAILER + (
        "\n\ndef start(topics, config):\n"
        "    options = dict(enable_auto_commit=False, **config)\n"
        "    Tailer(topics, **options).run()\n"
    )
    new = _migrated(source)
    assert "class Tailer(RebalanceListener):" in new
    assert "    Tailer(topics, **options).run()\n" in new
    assert migrate_source(new.encode(), "worker.py").new_source is None  # idempotent


def test_a_callback_calling_what_the_view_lacks_is_refused() -> None:
    source = AIOKAFKA_WORKER.replace(
        "await self._consumer.commit()", "await self._consumer.getone()"
    )
    result = migrate_source(source.encode(), "worker.py")
    reasons = [(m.line, m.reason) for m in result.manual]
    assert any(
        line == 4 and "getone()" in reason and "does not offer" in reason
        for line, reason in reasons
    ), reasons
    assert b"class Worker(aiokafka.ConsumerRebalanceListener):" in (
        result.new_source or source.encode()
    )


def test_registering_itself_on_two_consumers_is_refused() -> None:
    source = AIOKAFKA_WORKER.replace(
        "        await self._consumer.start()\n",
        "        await self._consumer.start()\n"
        "        self._other = aiokafka.AIOKafkaConsumer(group_id='h')\n"
        "        self._other.subscribe(topics=self.topics, listener=self)\n",
    )
    result = migrate_source(source.encode(), "worker.py")
    assert [(m.line, m.reason) for m in result.manual if m.line == 4] == [
        (
            4,
            "listener class Worker: it registers itself on 2 consumers (self._consumer, "
            "self._other); register one listener instance per consumer (each on its own "
            "self.<attr>) first",
        )
    ]


def test_created_in_another_module_without_registration_there() -> None:
    """Repository mode: the worker is created in ``app/main.py``, which registers nothing."""
    main = textwrap.dedent(
        """\
        from app.worker import Worker


        async def main():
            worker = Worker(["a"])
            await worker.start()
        """
    )
    worker = AIOKAFKA_WORKER.split("\n\nasync def main")[0] + "\n"
    files = {"app/__init__.py": b"", "app/worker.py": worker.encode(), "app/main.py": main.encode()}
    reports = check_repository(files)
    assert all(f.fixable for f in reports["app/worker.py"].findings)
    done = migrate_repository(files)
    assert done.pending == {"app/worker.py"}
    assert (
        done.results["app/worker.py"].new_source
        == (AIOKAFKA_MIGRATED.split("\n\nasync def main")[0] + "\n").encode()
    )


def test_a_wrapper_handed_its_consumer_keeps_it_for_its_loop() -> None:
    """The consumer handed to ``__init__`` is the one the wrapper registers itself on: both
    KRB201 sites are resolved by the migration (the callbacks use the view; the wrapper keeps
    its consumer to poll), so both are fixable and none is left afterwards."""
    source = '''\
from kafka import ConsumerRebalanceListener, KafkaConsumer


class Tailer(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self._consumer = consumer

    def run(self):
        self._consumer.subscribe(["a"], listener=self)
        for record in self._consumer:
            print(record)

    def on_partitions_revoked(self, revoked):
        self._consumer.commit()

    def on_partitions_assigned(self, assigned):
        pass


Tailer(KafkaConsumer()).run()
'''
    findings = [f for f in check_source(source.encode()).findings if f.code.startswith("KRB2")]
    assert sorted((f.line, f.code, f.fixable) for f in findings) == [
        (4, "KRB202", True),
        (5, "KRB201", True),
        (9, "KRB201", True),
        (9, "KRB203", True),
    ]
    new = _migrated(source)
    assert "    def __init__(self, consumer):\n        self._consumer = consumer\n" in new
    assert "        consumer.commit()\n" in new
    assert [f.code for f in check_source(new.encode()).findings] == []  # KRB104/105 too
