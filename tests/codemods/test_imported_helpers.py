# ruff: noqa: E501  (sources and reasons read best unwrapped)
"""``rebalance-guard migrate DIR``: a callback handing its consumer to a helper imported from
another module of the repository (REAL_WORLD.md: "commit hidden behind one helper", "a helper
that takes the consumer"; the real-world corpus's audit-log-shipper commits through
``commit_all(consumer, self._pending)`` from ``shipper/offsets.py``).

Repository mode sees the helper, so the callback migrates when the helper would also take the
view in the callback's own file (:mod:`rebalance_lint.analysis.shapes.helpers_take_view`): its
parameter unannotated, only methods the view offers called on it (awaited where coroutines),
shown, or handed on the same way. The helper's module is not edited. ``migrate FILE`` alone
cannot see the helper and keeps the refusal; ``check DIR`` calls the site fixable exactly when
``migrate DIR`` rewrites it.
"""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.repository import migrate_repository
from rebalance_lint import check_repository

SHIPPER = """\
from confluent_kafka import Consumer

from .offsets import commit_all


class Shipper:
    def __init__(self, conf):
        self._consumer = Consumer(conf)
        self._pending = {}

    def _on_revoke(self, consumer, partitions):
        commit_all(consumer, self._pending)

    def run(self):
        self._consumer.subscribe(["audit"], on_revoke=self._on_revoke)
        while True:
            self._consumer.poll(1.0)
            commit_all(self._consumer, self._pending)
"""

SHIPPER_AFTER = """\
from confluent_kafka import Consumer

from .offsets import commit_all
from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


class Shipper(RebalanceListener):
    def __init__(self, conf):
        self._consumer = Consumer(conf)
        self._pending = {}

    def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):
        commit_all(consumer, self._pending)

    def run(self):
        subscribe(self._consumer, ["audit"], self)
        while True:
            self._consumer.poll(1.0)
            commit_all(self._consumer, self._pending)
"""

OFFSETS = """\
from confluent_kafka import TopicPartition


def commit_all(consumer, pending):
    if not pending:
        return
    offsets = [TopicPartition(t, p, o + 1) for (t, p), o in pending.items()]
    print("committing on", consumer)
    consumer.commit(offsets=offsets, asynchronous=False)
    pending.clear()
"""


def _repo(**modules: str) -> dict[str, bytes]:
    return {
        f"app/{name.replace('__', '/')}.py": textwrap.dedent(text).encode()
        for name, text in {"__init__": "", **modules}.items()
    }


def _migrate(files: dict[str, bytes]) -> dict[str, bytes]:
    """Each file as ``migrate DIR`` leaves it; also asserts a second run changes nothing and
    ``check DIR`` agrees (fixable exactly where the migration rewrites)."""
    done = migrate_repository(files)
    assert all(r.status == "ok" for r in done.results.values()), done.results
    after = {path: done.results[path].new_source or source for path, source in files.items()}
    again = migrate_repository(after)
    assert all(r.new_source is None for r in again.results.values()), "not idempotent"
    migrated = sum(r.migrated_sites for r in done.results.values())
    fixable = [
        f
        for report in check_repository(files).values()
        for f in report.findings
        if f.code in {"KRB201", "KRB202", "KRB203"}
    ]
    assert sum(f.fixable for f in fixable) == (len(fixable) if migrated else 0), fixable
    return after


def _reasons(files: dict[str, bytes]) -> list[str]:
    done = migrate_repository(files)
    return [m.reason for r in done.results.values() for m in r.manual]


def test_a_helper_imported_from_another_module_takes_the_view() -> None:
    files = _repo(shipper=SHIPPER, offsets=OFFSETS)
    after = _migrate(files)
    assert after["app/shipper.py"].decode() == SHIPPER_AFTER
    assert after["app/offsets.py"] == files["app/offsets.py"], "the helper is not edited"


def test_migrate_file_alone_cannot_see_the_helper_and_keeps_the_refusal() -> None:
    result = migrate_source(SHIPPER.encode(), "app/shipper.py")
    assert result.new_source is None
    assert any("passes it to commit_all()" in m.reason for m in result.manual), result.manual


@pytest.mark.parametrize(
    ("imports", "call"),
    [
        ("from app import offsets", "offsets.commit_all"),
        ("import app.offsets", "app.offsets.commit_all"),
        ("from .offsets import commit_all as flush", "flush"),
    ],
)
def test_the_helper_may_be_reached_through_its_module_or_an_alias(imports: str, call: str) -> None:
    shipper = SHIPPER.replace("from .offsets import commit_all", imports).replace(
        "commit_all(consumer", f"{call}(consumer"
    )
    after = _migrate(_repo(shipper=shipper, offsets=OFFSETS))
    assert (
        "def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):"
        in after["app/shipper.py"].decode()
    )


def test_a_lambda_calling_an_imported_helper() -> None:
    """REAL_WORLD.md: ``on_assign=lambda c, p: reset(c, p, flag)``, ``reset`` in another module."""
    main = """\
        from confluent_kafka import Consumer

        from app.offsets import hold


        def main(flag):
            c = Consumer({})
            c.subscribe(["a"], on_assign=lambda c, p: hold(c, p, flag))
        """
    offsets = """\
        def hold(consumer, partitions, flag):
            if flag:
                consumer.pause(partitions)
        """
    after = _migrate(_repo(main=main, offsets=offsets))
    assert "hold(c, p, flag)" in after["app/main.py"].decode()
    assert "RebalanceConsumer" in after["app/main.py"].decode()


def test_a_helper_handing_it_on_to_a_helper_of_a_third_module() -> None:
    offsets = """\
        from app.low import commit_now


        def commit_all(consumer, pending):
            commit_now(consumer)
        """
    low = """\
        def commit_now(c):
            c.commit(asynchronous=False)
        """
    _migrate(_repo(shipper=SHIPPER, offsets=offsets, low=low))
    assert not _reasons(_repo(shipper=SHIPPER, offsets=offsets, low=low))


def test_a_kafka_python_listener_handing_its_injected_consumer_to_an_imported_helper() -> None:
    listener = """\
        from kafka import ConsumerRebalanceListener, KafkaConsumer

        from app.offsets import commit_all


        class Listener(ConsumerRebalanceListener):
            def __init__(self, consumer, pending):
                self.consumer = consumer
                self.pending = pending

            def on_partitions_revoked(self, revoked):
                commit_all(self.consumer, self.pending)

            def on_partitions_assigned(self, assigned):
                pass


        consumer = KafkaConsumer(group_id="g")
        consumer.subscribe(["a"], listener=Listener(consumer, {}))
        """
    offsets = """\
        def commit_all(consumer, pending):
            if pending:
                consumer.commit(pending)
                pending.clear()
        """
    after = _migrate(_repo(listener=listener, offsets=offsets))["app/listener.py"].decode()
    assert "commit_all(consumer, self.pending)" in after
    assert "self.consumer" not in after


AIOKAFKA = """\
    from aiokafka import AIOKafkaConsumer
    from aiokafka.abc import ConsumerRebalanceListener

    from app.offsets import commit_all


    class Listener(ConsumerRebalanceListener):
        def __init__(self, consumer):
            self.consumer = consumer

        async def on_partitions_revoked(self, revoked):
            {call}

        async def on_partitions_assigned(self, assigned):
            pass


    async def main():
        consumer = AIOKafkaConsumer(group_id="g")
        consumer.subscribe(["a"], listener=Listener(consumer))
    """


def test_an_awaited_imported_async_helper_awaiting_the_view() -> None:
    offsets = "async def commit_all(consumer):\n    await consumer.commit()\n"
    after = _migrate(
        _repo(listener=AIOKAFKA.format(call="await commit_all(self.consumer)"), offsets=offsets)
    )
    assert "await commit_all(consumer)" in after["app/listener.py"].decode()


@pytest.mark.parametrize(
    ("helper", "call"),
    [
        (
            "async def commit_all(consumer):\n    await consumer.commit()\n",
            "commit_all(self.consumer)",
        ),  # never awaited
        (
            "async def commit_all(consumer):\n    consumer.commit()\n",
            "await commit_all(self.consumer)",
        ),  # the commit never runs
        (
            "async def commit_all(consumer):\n    await consumer.getone()\n",
            "await commit_all(self.consumer)",
        ),  # not on the view
    ],
)
def test_an_imported_async_helper_that_could_outlive_or_misuse_the_view_is_refused(
    helper: str, call: str
) -> None:
    files = _repo(listener=AIOKAFKA.format(call=call), offsets=helper)
    assert migrate_repository(files).results["app/listener.py"].new_source is None
    assert any("passes it to commit_all()" in r for r in _reasons(files)), _reasons(files)


REFUSED = [
    ("polls", "def commit_all(consumer, pending):\n    consumer.poll(0)\n"),
    ("assigns", "def commit_all(consumer, pending):\n    consumer.assign([])\n"),
    ("positional commit", "def commit_all(consumer, pending):\n    consumer.commit(None, [])\n"),
    ("keeps it", "KEPT = []\n\ndef commit_all(consumer, pending):\n    KEPT.append(consumer)\n"),
    (
        "decorated",
        "import functools\n\n@functools.cache\ndef commit_all(consumer, pending):\n    consumer.assignment()\n",
    ),
    (
        "bound twice",
        "def commit_all(consumer, pending):\n    consumer.assignment()\n\ndef commit_all(consumer, pending):\n    consumer.poll(0)\n",
    ),
    (
        "rebound after",
        "def commit_all(consumer, pending):\n    consumer.assignment()\n\ncommit_all = print\n",
    ),
    (
        "passed on to something unknown",
        "from elsewhere import sink\n\ndef commit_all(consumer, pending):\n    sink(consumer)\n",
    ),
    (
        "a closure that may run later",
        "def commit_all(consumer, pending):\n    return lambda: consumer.commit(asynchronous=False)\n",
    ),
    ("a generator", "def commit_all(consumer, pending):\n    yield consumer.assignment()\n"),
    (
        "a generator expression",
        "def commit_all(consumer, pending):\n    return (consumer.position([p]) for p in pending)\n",
    ),
    (
        "a class, not a function",
        "class commit_all:\n    def __init__(self, consumer, pending):\n        consumer.assignment()\n",
    ),
]


@pytest.mark.parametrize(("name", "helper"), REFUSED, ids=[r[0] for r in REFUSED])
def test_any_other_imported_helper_is_still_refused(name: str, helper: str) -> None:
    files = _repo(shipper=SHIPPER, offsets=helper)
    done = migrate_repository(files)
    assert all(r.new_source is None for r in done.results.values())
    assert any(
        "_on_revoke uses the consumer other than to call a method" in r
        and "passes it to commit_all()" in r
        for r in _reasons(files)
    ), _reasons(files)


def test_a_helper_outside_the_directory_is_refused() -> None:
    shipper = SHIPPER.replace(
        "from .offsets import commit_all", "from common.offsets import commit_all"
    )
    files = _repo(shipper=shipper)
    assert migrate_repository(files).results["app/shipper.py"].new_source is None
    assert any("passes it to commit_all()" in r for r in _reasons(files)), _reasons(files)
