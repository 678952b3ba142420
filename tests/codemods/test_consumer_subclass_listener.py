# ruff: noqa: E501  (the migrated import line is the codemod's exact output)
"""A consumer subclass that passes ``self`` into its listener's constructor, whose revoke
commits an offset store (REAL_WORLD.md: "a consumer subclass that passes self into its
listener's constructor"; "commit hidden behind one helper"). ``self._storage.commit()`` is the
store's commit, not a consumer's: a parameter neither named nor annotated as a consumer is
left alone (before: the class was refused as calling commit() "on a consumer the codemod
cannot prove is the registering one"); the injected ``self`` becomes the view."""

from __future__ import annotations

from rebalance_codemods.api import migrate_source
from rebalance_codemods.repository import migrate_repository
from rebalance_lint import check_repository, check_source

BEFORE = """\
from kafka import ConsumerRebalanceListener, KafkaConsumer


class SaveOffsets(ConsumerRebalanceListener):
    def __init__(self, consumer, storage):
        self._consumer = consumer
        self._storage = storage

    def on_partitions_revoked(self, revoked):
        self._storage.commit()

    def on_partitions_assigned(self, assigned):
        for tp in assigned:
            self._consumer.seek(tp, self._storage.read(tp.topic, tp.partition))


class ExactlyOnceConsumer(KafkaConsumer):
    def __init__(self, *topics, storage, **kwargs):
        super().__init__(*topics, **kwargs)
        self._storage = storage

    def __iter__(self):
        topics = list(self.subscription())
        listener = SaveOffsets(self, self._storage)
        self.subscribe(topics, listener=listener)
        self.poll(0)
        return self
"""

AFTER = """\
from kafka import KafkaConsumer
from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


class SaveOffsets(RebalanceListener):
    def __init__(self, storage):
        self._storage = storage

    def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
        self._storage.commit()

    def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
        for tp in assigned:
            consumer.seek(tp, self._storage.read(tp.topic, tp.partition))


class ExactlyOnceConsumer(KafkaConsumer):
    def __init__(self, *topics, storage, **kwargs):
        super().__init__(*topics, **kwargs)
        self._storage = storage

    def __iter__(self):
        topics = list(self.subscription())
        listener = SaveOffsets(self._storage)
        set_rebalance_listener(self, listener)
        self.subscribe(topics)
        self.poll(0)
        return self
"""


def test_the_listener_and_its_registration_on_self_are_migrated() -> None:
    findings = {(f.line, f.code, f.fixable) for f in check_source(BEFORE.encode()).findings}
    assert findings == {(4, "KRB202", True), (5, "KRB201", True), (25, "KRB203", True)}
    result = migrate_source(BEFORE.encode(), "consumers.py")
    assert result.status == "ok" and not result.manual
    assert result.new_source == AFTER.encode()
    assert migrate_source(AFTER.encode(), "consumers.py").new_source is None
    assert [f.code for f in check_source(AFTER.encode()).findings] == []


def test_a_consumer_named_parameter_is_still_not_guessed() -> None:
    """The same call on a parameter named ``consumer`` that is not the registering one."""
    source = BEFORE.replace("self._storage.commit()", "self._consumer.commit()").replace(
        "SaveOffsets(self, self._storage)", "SaveOffsets(other, self._storage)"
    )
    result = migrate_source(source.encode(), "consumers.py")
    assert result.new_source is None or b"class SaveOffsets(ConsumerRebalanceListener)" in (
        result.new_source
    )
    assert any(m.line == 4 for m in result.manual), result.manual


BASE = """\
from kafka import KafkaConsumer


class DefaultConsumer(KafkaConsumer):
    def start(self, callback):
        for message in self:
            callback(message)
"""


def _repository(before: str, base: str = BASE) -> dict[str, bytes]:
    worker = before.replace(
        "from kafka import ConsumerRebalanceListener, KafkaConsumer",
        ("from kafka import ConsumerRebalanceListener\n\nfrom .default import DefaultConsumer"),
    ).replace(
        "class ExactlyOnceConsumer(KafkaConsumer):", "class ExactlyOnceConsumer(DefaultConsumer):"
    )
    return {
        "consumers/__init__.py": b"",
        "consumers/default.py": base.encode(),
        "consumers/exactly_once.py": worker.encode(),
    }


def test_the_consumer_subclass_may_derive_through_another_module() -> None:
    """Repository mode: ``ExactlyOnceConsumer(DefaultConsumer)``, ``DefaultConsumer`` deriving
    from ``KafkaConsumer`` in another module (before: ``self.subscribe(listener=)`` was no
    registration, and the class was refused as never registered)."""
    files = _repository(BEFORE)
    reports = check_repository(files)
    findings = {(f.line, f.code, f.fixable) for f in reports["consumers/exactly_once.py"].findings}
    assert findings == {(6, "KRB202", True), (7, "KRB201", True), (27, "KRB203", True)}
    done = migrate_repository(files)
    new = done.results["consumers/exactly_once.py"].new_source
    assert new is not None and not done.results["consumers/exactly_once.py"].manual
    assert (
        b"        set_rebalance_listener(self, listener)\n        self.subscribe(topics)\n" in new
    )
    assert b"listener = SaveOffsets(self._storage)" in new


def test_a_base_in_another_module_overriding_subscribe_is_respected() -> None:
    """``DefaultConsumer`` wraps ``listener=`` in its own ``subscribe()``: moving the
    registration to ``set_rebalance_listener`` would bypass it, so the site is refused."""
    base = BASE + (
        "\n    def subscribe(self, topics=(), pattern=None, listener=None):\n"
        "        super().subscribe(topics, pattern, Logged(listener))\n"
    )
    done = migrate_repository(_repository(BEFORE, base))
    result = done.results["consumers/exactly_once.py"]
    assert result.new_source is None or b"listener=listener" in result.new_source
    assert any(
        "defines its own DefaultConsumer.subscribe() (consumers/default.py:9)" in m.reason
        for m in result.manual
    ), result.manual


def test_an_in_file_subscribe_override_is_respected() -> None:
    """The same in one file: ``self.subscribe(listener=)`` in a consumer subclass that defines
    ``subscribe()`` itself (before: the registration was moved and the override bypassed)."""
    source = BEFORE.replace(
        "    def __iter__(self):",
        "    def subscribe(self, topics=(), pattern=None, listener=None):\n"
        "        super().subscribe(topics, pattern, Logged(listener))\n\n"
        "    def __iter__(self):",
    )
    result = migrate_source(source.encode(), "consumers.py")
    assert result.new_source is None or b"listener=listener" in result.new_source
    assert any("defines its own ExactlyOnceConsumer.subscribe()" in m.reason for m in result.manual)
