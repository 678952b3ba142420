# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""Optional listeners (issue 25, ``shapes/optional_listeners.py``): the registered value is a
variable or ``self.<attr>`` holding either None or the one instance of a listener class.

Real code registers a listener only when it has something to do: ``listener =
SeekListener(consumer, on_assign) if on_assign else None`` (kafka-python), ``listener_instance
= None`` then ``if ready_event: listener_instance = _ReadyListener(...)`` registered in one of
two branches (aiokafka), ``self._listener = None`` in ``__init__`` and ``self._listener =
RebalanceListener()`` where it subscribes, read under ``if self._listener:`` (aiokafka).

Each registration becomes ``set_rebalance_listener(c, value)`` then ``c.subscribe(...)``, and
``set_rebalance_listener(c, None)`` removes any listener exactly as ``subscribe(...,
listener=None)`` did (checked below on both clients' objects). So the class migrates when every
binding is None or that one creation and every registration of it is on one consumer; anything
the codemod cannot prove is refused, naming the next step.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import textwrap
from pathlib import Path

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.repository import migrate_repository
from rebalance_lint import check_source
from rebalance_lint.analysis.shapes import optional_listeners

FIXTURES = Path(__file__).parent / "fixtures"
MIGRATION_CODES = ("KRB201", "KRB202", "KRB203")


def _migrate(source: str) -> str:
    result = migrate_source(textwrap.dedent(source).encode(), "app.py")
    assert result.status == "ok" and not result.manual, result.manual
    assert result.new_source is not None
    again = migrate_source(result.new_source, "app.py")
    assert again.new_source is None and not again.manual, "migrating the output changes nothing"
    return result.new_source.decode()


def _krb2xx(source: str) -> list[tuple[str, bool]]:
    findings = check_source(textwrap.dedent(source).encode(), "app.py").findings
    return [(f.code, f.fixable) for f in findings if f.code in MIGRATION_CODES]


SEEK = """
from kafka import ConsumerRebalanceListener, KafkaConsumer


class SeekListener(ConsumerRebalanceListener):
    def __init__(self, consumer, on_assign):
        self.consumer = consumer
        self.on_assign = on_assign

    def on_partitions_revoked(self, revoked):
        self.consumer.commit()

    def on_partitions_assigned(self, assigned):
        self.on_assign(assigned)
        self.consumer.seek_to_beginning(*assigned)


def consume(topic, on_assign=None):
    consumer = KafkaConsumer(group_id="g")
    listener = SeekListener(consumer, on_assign) if on_assign else None
    consumer.subscribe([topic], listener=listener)
    for message in consumer:
        print(message)
"""


def test_a_listener_or_none_chosen_inline_migrates_with_its_injected_consumer() -> None:
    """(a) kafka-python: ``SeekListener(consumer, on_assign) if on_assign else None``."""
    assert _krb2xx(SEEK) == [("KRB202", True), ("KRB201", True), ("KRB203", True)]
    after = _migrate(SEEK)
    assert after == textwrap.dedent(
        """
        from kafka import KafkaConsumer
        from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


        class SeekListener(RebalanceListener):
            def __init__(self, on_assign):
                self.on_assign = on_assign

            def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                consumer.commit()

            def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                self.on_assign(assigned)
                consumer.seek_to_beginning(*assigned)


        def consume(topic, on_assign=None):
            consumer = KafkaConsumer(group_id="g")
            listener = SeekListener(on_assign) if on_assign else None
            set_rebalance_listener(consumer, listener)
            consumer.subscribe([topic])
            for message in consumer:
                print(message)
        """
    )
    assert _krb2xx(after) == []


READY = """
from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener


class _ReadyListener(ConsumerRebalanceListener):
    def __init__(self, ready_event, topic):
        self._ready_event = ready_event
        self._topic = topic

    async def on_partitions_revoked(self, revoked):
        pass

    async def on_partitions_assigned(self, assigned):
        if any(tp.topic == self._topic for tp in assigned):
            self._ready_event.set()


class Subscriber:
    def __init__(self):
        self._consumer = AIOKafkaConsumer(group_id="g")

    async def start(self, topics, pattern=None, ready_event=None):
        listener_instance = None
        if ready_event:
            listener_instance = _ReadyListener(ready_event, topics[0])
        if pattern:
            self._consumer.subscribe(pattern=pattern, listener=listener_instance)
        else:
            self._consumer.subscribe(
                topics,
                listener=listener_instance,
            )
        await self._consumer.start()
"""


def test_none_then_a_listener_in_a_branch_registered_in_two_branches_migrates() -> None:
    """(b) aiokafka: ``listener_instance = None``, set under ``if ready_event:``, registered
    by pattern or (over several lines) by topics: both registrations split."""
    assert _krb2xx(READY) == [("KRB202", True), ("KRB203", True), ("KRB203", True)]
    after = _migrate(READY)
    assert after == textwrap.dedent(
        """
        from aiokafka import AIOKafkaConsumer
        from rebalance_guard.aiokafka import RebalanceConsumer, RebalanceListener, set_rebalance_listener


        class _ReadyListener(RebalanceListener):
            def __init__(self, ready_event, topic):
                self._ready_event = ready_event
                self._topic = topic

            async def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                pass

            async def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                if any(tp.topic == self._topic for tp in assigned):
                    self._ready_event.set()


        class Subscriber:
            def __init__(self):
                self._consumer = AIOKafkaConsumer(group_id="g")

            async def start(self, topics, pattern=None, ready_event=None):
                listener_instance = None
                if ready_event:
                    listener_instance = _ReadyListener(ready_event, topics[0])
                if pattern:
                    set_rebalance_listener(self._consumer, listener_instance)
                    self._consumer.subscribe(pattern=pattern)
                else:
                    set_rebalance_listener(self._consumer, listener_instance)
                    self._consumer.subscribe(
                        topics,
                    )
                await self._consumer.start()
        """
    )
    assert _krb2xx(after) == []


SERVICE = """
from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener

TOPIC = "t"


class RebalanceListener(ConsumerRebalanceListener):
    def __init__(self):
        self.consumer_ready = False

    async def on_partitions_revoked(self, revoked):
        self.consumer_ready = False

    async def on_partitions_assigned(self, assigned):
        self.consumer_ready = True


class Service:
    def __init__(self):
        self.consumer = AIOKafkaConsumer(group_id="g")
        self._listener = None

    async def start(self):
        self._listener = RebalanceListener()
        self.consumer.subscribe([TOPIC], listener=self._listener)
        await self.consumer.start()

    def ready(self):
        if self._listener:
            return self._listener.consumer_ready
        return False

    async def stop(self):
        if self._listener:
            self._listener.consumer_ready = False
        await self.consumer.stop()
"""


def test_an_attribute_none_in_init_and_set_where_it_subscribes_migrates() -> None:
    """(c) aiokafka: ``self._listener = None`` in ``__init__``, the listener created and
    registered in ``start()``, its flag read and reset under ``if self._listener:``; the class
    is called RebalanceListener, so rebalance_guard's base comes under another name."""
    assert _krb2xx(SERVICE) == [("KRB202", True), ("KRB203", True)]
    after = _migrate(SERVICE)
    assert after == textwrap.dedent(
        """
        from aiokafka import AIOKafkaConsumer
        from rebalance_guard.aiokafka import RebalanceConsumer, RebalanceListener as GuardRebalanceListener, set_rebalance_listener

        TOPIC = "t"


        class RebalanceListener(GuardRebalanceListener):
            def __init__(self):
                self.consumer_ready = False

            async def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                self.consumer_ready = False

            async def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                self.consumer_ready = True


        class Service:
            def __init__(self):
                self.consumer = AIOKafkaConsumer(group_id="g")
                self._listener = None

            async def start(self):
                self._listener = RebalanceListener()
                set_rebalance_listener(self.consumer, self._listener)
                self.consumer.subscribe([TOPIC])
                await self.consumer.start()

            def ready(self):
                if self._listener:
                    return self._listener.consumer_ready
                return False

            async def stop(self):
                if self._listener:
                    self._listener.consumer_ready = False
                await self.consumer.stop()
        """
    )
    assert _krb2xx(after) == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "        self._listener = None\n",
            "        self._listener: RebalanceListener | None = None\n",
        ),
        ("class Service:\n", "class Service:\n    _listener = None\n"),
        (
            "            return self._listener.consumer_ready\n",
            "            return self._listener and self._listener.consumer_ready\n",
        ),
        (
            "        if self._listener:\n            self._listener",
            "        if self._listener is not None:\n            self._listener",
        ),
        (
            "        if self._listener:\n            self._listener",
            "        if None is not self._listener:\n            self._listener",
        ),
    ],
    ids=["annotated", "class-attribute-none", "and", "is-not-none", "none-is-not"],
)
def test_the_attribute_holders_other_spellings_migrate(old: str, new: str) -> None:
    assert old in SERVICE
    after = _migrate(SERVICE.replace(old, new, 1))
    assert "class RebalanceListener(GuardRebalanceListener):" in after
    assert "        set_rebalance_listener(self.consumer, self._listener)\n" in after


def test_a_listener_or_none_written_at_the_registration_migrates() -> None:
    source = SEEK.replace(
        "    listener = SeekListener(consumer, on_assign) if on_assign else None\n    consumer.subscribe([topic], listener=listener)\n",
        "    consumer.subscribe([topic], listener=SeekListener(consumer, on_assign) if on_assign else None)\n",
    )
    after = _migrate(source)
    assert (
        "    set_rebalance_listener(consumer, SeekListener(on_assign) if on_assign else None)\n    consumer.subscribe([topic])\n"
        in after
    )
    assert "class SeekListener(RebalanceListener):" in after


def test_a_listener_class_of_another_module_held_optionally_migrates_in_repository_mode() -> None:
    listeners = """
        from aiokafka import ConsumerRebalanceListener


        class ReadyListener(ConsumerRebalanceListener):
            def __init__(self, event):
                self.event = event

            async def on_partitions_revoked(self, revoked):
                self.event.clear()

            async def on_partitions_assigned(self, assigned):
                self.event.set()
        """
    service = """
        from aiokafka import AIOKafkaConsumer

        from .listeners import ReadyListener


        class Service:
            def __init__(self):
                self.consumer = AIOKafkaConsumer(group_id="g")
                self._listener = None

            async def start(self, event=None):
                if event is not None:
                    self._listener = ReadyListener(event)
                self.consumer.subscribe(["t"], listener=self._listener)
                await self.consumer.start()
        """
    files = {
        "app/__init__.py": b"",
        "app/listeners.py": textwrap.dedent(listeners).encode(),
        "app/service.py": textwrap.dedent(service).encode(),
    }
    results = migrate_repository(files).results
    assert all(not r.manual for r in results.values()), {p: r.manual for p, r in results.items()}
    assert b"class ReadyListener(RebalanceListener):" in (
        results["app/listeners.py"].new_source or b""
    )
    assert b"        set_rebalance_listener(self.consumer, self._listener)\n" in (
        results["app/service.py"].new_source or b""
    )
    files["app/service.py"] += b"\n    def reset(self):\n        self._listener = object()\n"
    refused = migrate_repository(files).results["app/listeners.py"]
    assert refused.new_source is None
    assert [m.reason for m in refused.manual] == [
        "listener class ReadyListener: the listener self._listener is also bound to object() at line 19, which the codemod cannot prove is None or a ReadyListener; give the ReadyListener instance an attribute of its own first (at app/service.py:14)"
    ]


@pytest.mark.parametrize(
    "name",
    ["optional_listener_kafka_python", "optional_listener_aiokafka", "optional_listener_attribute"],
)
def test_the_fixtures_migrate_idempotently_and_check_agrees(name: str) -> None:
    """The fixture files (whose twins mypy --strict and pyright check in
    test_migrated_type_checks): every KRB2xx finding fixable, none left after, a second run
    changes nothing."""
    before = (FIXTURES / f"{name}.py").read_bytes()
    after = (FIXTURES / "migrated" / f"{name}.py").read_bytes()
    findings = [f for f in check_source(before, f"{name}.py").findings if f.code in MIGRATION_CODES]
    assert findings and all(f.fixable for f in findings), findings
    result = migrate_source(before, f"{name}.py")
    assert not result.manual and result.new_source == after
    assert [
        f for f in check_source(after, f"{name}.py").findings if f.code in MIGRATION_CODES
    ] == []
    assert migrate_source(after, f"{name}.py").new_source is None


REFUSED_BODY = """
from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener


class Ready(ConsumerRebalanceListener):
    def __init__(self, event):
        self.event = event

    async def on_partitions_revoked(self, revoked):
        pass

    async def on_partitions_assigned(self, assigned):
        self.event.set()


class Other(ConsumerRebalanceListener):
    async def on_partitions_revoked(self, revoked):
        pass

    async def on_partitions_assigned(self, assigned):
        pass


def make():
    return None


class Subscriber:
    def __init__(self):
        self._consumer = AIOKafkaConsumer(group_id="g")
        self._spare = AIOKafkaConsumer(group_id="h")

    async def start(self, topics, event=None, other=False):
        listener = None
        if event:
            listener = Ready(event)
        {body}
        self._consumer.subscribe(topics, listener=listener)
        await self._consumer.start()
"""
_STEP = "give the Ready instance a variable of its own first"
#: (id, the statements after the optional binding, the refusal at class Ready, line 5)
REFUSED = [
    (
        "two-classes",
        "if other:\n            listener = Other()",
        "the listener listener may hold a Ready (line 36) or an Other (line 38); register each class from a variable of its own first",
    ),
    (
        "rebound",
        "if other:\n            listener = make()",
        f"the listener listener is also bound to make() at line 38, which the codemod cannot prove is None or a Ready; {_STEP}",
    ),
    (
        "two-creations",
        "if other:\n            listener = Ready(other)",
        "the listener listener is bound to a Ready at lines 36 and 38; create it in one place first",
    ),
    (
        "two-consumers",
        "self._spare.subscribe(topics, listener=listener)",
        "the listener listener is registered on self._spare (line 37) and on self._consumer (line 38); register each instance on one consumer first",
    ),
    (
        "nonlocal",
        "def forget():\n            nonlocal listener\n            listener = None\n        forget()",
        f"the listener listener is declared nonlocal at line 38; {_STEP}",
    ),
    (
        "for-target",
        "for listener in ():\n            pass",
        f"the listener listener is also bound at line 37 other than by 'listener = ...'; {_STEP}",
    ),
    (
        "handed-on",
        "print(listener)",
        "the listener listener is used at line 37 beyond its registration; move that use to another object (the migrated listener's methods take the view), then run migrate again",
    ),
    (
        "or",
        "print(listener or event)",
        "the listener listener is used at line 37 beyond its registration; move that use to another object (the migrated listener's methods take the view), then run migrate again",
    ),
]


@pytest.mark.parametrize(("body", "reason"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_what_cannot_be_proven_keeps_the_class_and_names_the_next_step(
    body: str, reason: str
) -> None:
    source = REFUSED_BODY.replace("{body}", body)
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok", result.reason
    assert (
        "class Ready(ConsumerRebalanceListener):" in (result.new_source or source.encode()).decode()
    )
    assert (5, f"listener class Ready: {reason}") in [(m.line, m.reason) for m in result.manual], (
        result.manual
    )


PARAMETER = """
from kafka import ConsumerRebalanceListener, KafkaConsumer


class Hooks(ConsumerRebalanceListener):
    def __init__(self, hooks):
        self.hooks = hooks

    def on_partitions_revoked(self, revoked):
        self.hooks.revoked(revoked)

    def on_partitions_assigned(self, assigned):
        self.hooks.assigned(assigned)


def stream(topics, hooks, listener=None):
    consumer = KafkaConsumer(group_id="g")
    if listener is None and hooks:
        listener = Hooks(hooks)
    consumer.subscribe(topics, listener=listener)
    return consumer
"""

#: (id, source, the refusal at the class)
REFUSED_ELSEWHERE = [
    (
        "parameter",
        PARAMETER,
        "listener class Hooks: the listener listener is also a parameter (line 16), bound to whatever the callers pass; give the Hooks instance a variable of its own first",
    ),
    (
        "attribute-set-elsewhere",
        SERVICE + "\n    def reset(self):\n        self._listener = object()\n",
        "listener class RebalanceListener: the listener self._listener is also bound to object() at line 39, which the codemod cannot prove is None or a RebalanceListener; give the RebalanceListener instance an attribute of its own first",
    ),
    (
        "attribute-of-another-object",
        SERVICE + "\n\ndef reset(service):\n    service._listener = None\n",
        "listener class RebalanceListener: the listener self._listener is also set at line 40 other than by Service's own 'self._listener = ...'; give the RebalanceListener instance an attribute of its own first",
    ),
    (
        "attribute-deleted",
        SERVICE + "\n    def reset(self):\n        del self._listener\n",
        "listener class RebalanceListener: the listener self._listener is also deleted at line 39 other than by Service's own 'self._listener = ...'; give the RebalanceListener instance an attribute of its own first",
    ),
    (
        "class-attribute",
        SERVICE.replace("class Service:\n", "class Service:\n    _listener = object()\n"),
        "listener class RebalanceListener: the listener self._listener is also bound to object() at line 19, which the codemod cannot prove is None or a RebalanceListener; give the RebalanceListener instance an attribute of its own first",
    ),
    (
        "attribute-method",
        SERVICE + "\n    def _listener(self):\n        return None\n",
        "listener class RebalanceListener: the listener self._listener is also a method of Service (line 38); give the RebalanceListener instance an attribute of its own first",
    ),
]


@pytest.mark.parametrize(
    ("source", "reason"), [c[1:] for c in REFUSED_ELSEWHERE], ids=[c[0] for c in REFUSED_ELSEWHERE]
)
def test_an_optional_holder_bound_elsewhere_is_refused(source: str, reason: str) -> None:
    result = migrate_source(textwrap.dedent(source).encode(), "app.py")
    assert result.status == "ok", result.reason
    assert "(GuardRebalanceListener)" not in (result.new_source or b"").decode()
    assert "class Hooks(RebalanceListener)" not in (result.new_source or b"").decode()
    assert reason in [m.reason for m in result.manual], result.manual
    # the registration itself still splits: set_rebalance_listener takes legacy listeners
    assert "set_rebalance_listener(" in (result.new_source or b"").decode()


def test_a_callback_called_through_the_holder_keeps_the_class() -> None:
    source = REFUSED_BODY.replace(
        "{body}", "if listener:\n            await listener.on_partitions_assigned(set())"
    )
    result = migrate_source(source.encode(), "app.py")
    assert (
        "class Ready(ConsumerRebalanceListener):" in (result.new_source or source.encode()).decode()
    )
    assert any(
        m.line == 5 and "on_partitions_assigned is called directly at line 38" in m.reason
        for m in result.manual
    ), result.manual


def test_a_creation_never_registered_is_still_not_registered() -> None:
    """An optional variable that no subscribe() passes: the instance really is unregistered."""
    source = REFUSED_BODY.replace("{body}", "pass").replace(
        "self._consumer.subscribe(topics, listener=listener)", "self._consumer.subscribe(topics)"
    )
    result = migrate_source(source.encode(), "app.py")
    assert (
        5,
        "listener class Ready: the instance created at line 36 is not registered with subscribe(listener=...) in this file; register it where it is created first",
    ) in [(m.line, m.reason) for m in result.manual]


#: Every refusal this shape gives, for tests/codemods/test_refusals.py's coverage check.
REASONS = [reason for *_, reason in REFUSED + REFUSED_ELSEWHERE]


def test_each_refusal_reason_of_the_shape_has_a_case() -> None:
    """Every message the shape module writes (its f-strings: the refusals, and the holders'
    other bindings they name) is one of the cases above."""
    covered = " | ".join(REASONS)
    missing = []
    for node in ast.walk(ast.parse(inspect.getsource(optional_listeners))):
        if isinstance(node, ast.JoinedStr):
            texts = [v.value for v in node.values if isinstance(v, ast.Constant)]
            probe = max((t for t in texts if isinstance(t, str)), key=len, default="").strip()
            if len(probe) > 12 and probe not in covered:
                missing.append(probe)
    assert not missing, missing


def _kafka_python_listener(subscription: object) -> object:
    """The listener kafka-python's SubscriptionState holds (3.x: rebalance_listener, 2.x:
    listener)."""
    for name in ("rebalance_listener", "listener"):
        if name in vars(subscription):
            return vars(subscription)[name]
    raise AssertionError(vars(subscription))


def test_set_rebalance_listener_none_removes_the_listener_as_subscribe_listener_none_does() -> None:
    """The equivalence the shape rests on, on the clients' own objects (no broker needed):
    a listener registered first is gone after ``subscribe(topics, listener=None)`` and after
    ``set_rebalance_listener(c, None)`` then ``subscribe(topics)``."""
    import kafka
    from aiokafka import AIOKafkaConsumer
    from aiokafka.abc import ConsumerRebalanceListener as AioBase
    from rebalance_guard import aiokafka as guard_aio
    from rebalance_guard import kafka_python as guard_kp

    class Legacy(kafka.ConsumerRebalanceListener):  # type: ignore[misc]
        def on_partitions_revoked(self, revoked: object) -> None: ...

        def on_partitions_assigned(self, assigned: object) -> None: ...

    for migrated in (False, True):
        consumer = kafka.KafkaConsumer(
            bootstrap_servers="127.0.0.1:1", api_version=(2, 5), group_id="g"
        )
        try:
            consumer.subscribe(["t"], listener=Legacy())
            assert _kafka_python_listener(consumer._subscription) is not None
            if migrated:
                guard_kp.set_rebalance_listener(consumer, None)
                consumer.subscribe(["t"])
            else:
                consumer.subscribe(["t"], listener=None)
            assert _kafka_python_listener(consumer._subscription) is None
        finally:
            consumer.close()

    class AioLegacy(AioBase):  # type: ignore[misc]
        async def on_partitions_revoked(self, revoked: object) -> None: ...

        async def on_partitions_assigned(self, assigned: object) -> None: ...

    async def aiokafka_listener(migrated: bool) -> object:
        consumer = AIOKafkaConsumer(bootstrap_servers="127.0.0.1:1", group_id="g")
        try:
            consumer.subscribe(["t"], listener=AioLegacy())
            assert consumer._subscription.listener is not None
            if migrated:
                guard_aio.set_rebalance_listener(consumer, None)
                consumer.subscribe(["t"])
            else:
                consumer.subscribe(["t"], listener=None)
            return consumer._subscription.listener
        finally:
            await consumer.stop()

    assert asyncio.run(aiokafka_listener(False)) is None
    assert asyncio.run(aiokafka_listener(True)) is None
