"""Callbacks under a decorator that passes every call through unchanged migrate, keeping the
decorator (lint_rules/rebalance_lint/analysis/shapes/transparent_decorators.py); any decorator
that may read or change the arguments still refuses the callback, saying so."""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_lint.analysis.shapes.transparent_decorators import decorated_refusal

KAFKA_PYTHON = """
import functools
from functools import wraps
import threading

from kafka import ConsumerRebalanceListener, KafkaConsumer

LOCK = threading.Lock()

{decorator}

class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    @{name}
    def on_partitions_revoked(self, revoked):
        self.consumer.commit()

    def on_partitions_assigned(self, assigned):
        pass


consumer = KafkaConsumer(group_id="g")
consumer.subscribe(["a"], listener=Listener(consumer))
"""

PASSING = {
    "wraps-and-lock": """
        def deco(fn):
            \"\"\"Hold the lock.\"\"\"
            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                with LOCK:
                    return fn(*args, **kwargs)
            return wrapper
    """,
    "imported-wraps-try-except": """
        def deco(fn):
            @wraps(fn)
            def wrapper(*args, **kwargs):
                try:
                    fn(*args, **kwargs)
                except Exception:
                    print("callback failed")
            return wrapper
    """,
    "self-first-no-wraps": """
        def deco(fn):
            def inner(self, *a, **k):
                print("before")
                result = None
                return fn(self, *a, **k)
            return inner
    """,
}

PASSING["reads-self-on-a-method"] = """
    def deco(method):
        @wraps(method)
        def call(self, *args, **kwargs):
            with self.lock:
                return method(self, *args, **kwargs)
        return call
"""

REFUSED = {
    # reads the arguments: it would see the view where it saw the partitions
    "reads-arguments": """
        def deco(fn):
            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                print(args[1])
                return fn(*args, **kwargs)
            return wrapper
    """,
    # calls the callback twice
    "calls-twice": """
        def deco(fn):
            def wrapper(*args, **kwargs):
                fn(*args, **kwargs)
                return fn(*args, **kwargs)
            return wrapper
    """,
    # passes other arguments
    "changes-arguments": """
        def deco(fn):
            def wrapper(self, *args, **kwargs):
                return fn(self, *args[::-1], **kwargs)
            return wrapper
    """,
    # keeps the result for itself
    "uses-the-result": """
        def deco(fn):
            def wrapper(*args, **kwargs):
                result = fn(*args, **kwargs)
                print(result)
            return wrapper
    """,
    # self rebound before it is passed on: not the instance any more
    "rebinds-self": """
        def deco(fn):
            def wrapper(self, *args, **kwargs):
                self = self.other
                return fn(self, *args, **kwargs)
            return wrapper
    """,
    # a factory: what it returns is not read here
    "factory": """
        def deco_factory(n):
            def deco(fn):
                return fn
            return deco
        deco = deco_factory(3)
    """,
    # not this file's
    "imported": "from helpers import deco",
    # wraps something other than the callback
    "wraps-another": """
        def deco(fn):
            @functools.wraps(print)
            def wrapper(*args, **kwargs):
                return fn(*args, **kwargs)
            return wrapper
    """,
}


def _source(decorator: str, name: str = "deco") -> str:
    return KAFKA_PYTHON.format(decorator=textwrap.dedent(decorator), name=name)


@pytest.mark.parametrize("case", PASSING)
def test_a_pass_through_decorator_keeps_the_callback_migratable(case: str) -> None:
    result = migrate_source(_source(PASSING[case]).encode(), "legacy.py")
    assert result.status == "ok" and not result.manual, result.manual
    assert result.new_source is not None
    new = result.new_source.decode()
    assert (
        "    @deco\n    def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):\n"
        "        consumer.commit()\n"
    ) in new
    assert migrate_source(result.new_source, "legacy.py").new_source is None  # idempotent


@pytest.mark.parametrize("case", REFUSED)
def test_any_other_decorator_still_refuses_the_callback(case: str) -> None:
    result = migrate_source(_source(REFUSED[case]).encode(), "legacy.py")
    reasons = [m.reason for m in result.manual]
    assert any(decorated_refusal("on_partitions_revoked") in r for r in reasons), reasons
    new = result.new_source.decode() if result.new_source is not None else ""
    assert "RebalanceConsumer" not in new  # the class is untouched


def test_the_migrated_fixture_runs_under_its_decorator() -> None:
    """The migrated twin, driven the way set_rebalance_listener drives it: the decorated
    callbacks get the view through the wrapper (the lock held), commit on it, and see their
    partitions."""
    from kafka.structs import TopicPartition
    from rebalance_guard.testing.kafka_python import ListenerHarness

    from tests.codemods.fixtures.migrated import transparent_decorators as migrated

    t0 = TopicPartition("events", 0)
    harness = ListenerHarness(migrated.OwnershipListener())
    harness.set_committed({t0: 5})
    harness.assign([t0])
    assert migrated.owned == {t0}
    harness.revoke()
    assert harness.commits == [{t0: 5}]  # the bare commit, on the view
    assert migrated.owned == set()
    assert not migrated.METRICS_LOCK.locked()


CONFLUENT = """
import functools
import threading

from confluent_kafka import Consumer

LOCK = threading.Lock()
calls = []


def synchronized(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with LOCK:
            return fn(*args, **kwargs)
    return wrapper


@synchronized
def on_assign(consumer, partitions):
    calls.append(("assigned", [p.partition for p in partitions]))


class Worker:
    def __init__(self):
        self.consumer = Consumer({"group.id": "g"})

    @synchronized
    def on_revoke(self, consumer, partitions):
        calls.append(("revoked", consumer.commit(asynchronous=False)))

    def run(self):
        self.consumer.subscribe(["t"], on_revoke=self.on_revoke)


def main():
    consumer = Consumer({"group.id": "h"})
    consumer.subscribe(["t"], on_assign=on_assign)
"""


def test_confluent_callbacks_under_a_pass_through_decorator_migrate_and_run() -> None:
    """confluent's callbacks too (callback_takes_view asks the same decision): a decorated
    def gathered into the listener class and an owner's decorated method renamed in place
    keep their decorator; the migrated module, driven by confluent's listener harness, runs
    them with the view through the wrappers."""
    from confluent_kafka import TopicPartition
    from rebalance_guard.testing.confluent_kafka import ListenerHarness

    result = migrate_source(CONFLUENT.encode(), "worker.py")
    assert result.status == "ok" and not result.manual, result.manual
    assert result.new_source is not None
    new = result.new_source.decode()
    for method in ("on_partitions_assigned", "on_partitions_revoked"):
        signature = f"def {method}(self, partitions, consumer: RebalanceConsumer):"
        assert f"    @synchronized\n    {signature}\n" in new
    assert migrate_source(result.new_source, "worker.py").new_source is None  # idempotent

    namespace: dict[str, object] = {"__name__": "migrated_worker"}
    exec(compile(new, "worker.py", "exec"), namespace)  # defines; creates no consumer
    calls = namespace["calls"]
    assert isinstance(calls, list)
    t0 = TopicPartition("t", 0)
    gathered = ListenerHarness(namespace["RebalanceCallbacks"]())  # type: ignore[operator]
    gathered.assign([t0])
    owner = ListenerHarness(namespace["Worker"]())  # type: ignore[operator]
    owner.set_committed({t0: 3})
    owner.assign([t0])
    owner.revoke()
    assert calls[0] == ("assigned", [0])
    assert calls[-1][0] == "revoked"
    assert not namespace["LOCK"].locked()  # type: ignore[attr-defined]


def test_a_wrapper_reading_its_first_argument_refuses_a_def_that_becomes_a_method() -> None:
    """On confluent's ``def on_assign(consumer, partitions)`` the wrapper's first argument is
    the consumer before the migration and the listener after it: reading it (``self.lock``)
    would change; only passing it on is the same (the method case reads the instance both
    times: PASSING["reads-self-on-a-method"])."""
    decorator = textwrap.dedent(PASSING["reads-self-on-a-method"])
    source = (
        "from functools import wraps\nfrom confluent_kafka import Consumer\n"
        + decorator
        + "\n@deco\ndef on_assign(consumer, partitions):\n    print(partitions)\n\n"
        + 'c = Consumer({"group.id": "g"})\nc.subscribe(["t"], on_assign=on_assign)\n'
    )
    result = migrate_source(source.encode(), "app.py")
    assert [m.reason for m in result.manual] == [decorated_refusal("on_assign")]
    assert result.new_source is None
