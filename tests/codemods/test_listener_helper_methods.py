# ruff: noqa: E501  (the expected refusals are whole messages; LibCST does not wrap)
"""A listener injected with its consumer whose callbacks use it through a helper method of the
listener (``await self.reset_offsets()``, ``self._assign(partitions)``):
``shapes/listener_helper_methods.py``. The helper takes the view as a keyword-only
parameter, each callback passes its own, and the injection goes; where that cannot be
proven, the callbacks alone take the view, the injection is kept, and the site names what
blocks it."""

from __future__ import annotations

import asyncio
import importlib.util
import textwrap
from pathlib import Path
from types import ModuleType

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_lint.api import check_source

FIXTURES = Path(__file__).parent / "fixtures"


def _migrate(source: str) -> tuple[str, list[tuple[int, str]]]:
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok", result
    assert result.new_source is not None
    assert migrate_source(result.new_source, "app.py").new_source is None  # idempotent
    return result.new_source.decode(), [(m.line, m.reason) for m in result.manual]


def _krb201(source: str) -> list[bool]:
    findings = check_source(source.encode(), "app.py").findings
    return [f.fixable for f in findings if f.code == "KRB201"]


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"migrated_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_kafka_python_fixture_passes_the_view_through_two_helpers() -> None:
    source = (FIXTURES / "listener_helper_methods.py").read_text()
    assert _krb201(source) == [True]  # check says fixable exactly where migrate rewrites
    after, manual = _migrate(source)
    assert manual == []
    assert "            self._restore(assigned, consumer=consumer)\n" in after
    assert (
        "    def _restore(self, partitions: set[TopicPartition], *, consumer: RebalanceConsumer) -> None:\n"
        "        beginnings = consumer.beginning_offsets(list(partitions))\n"
    ) in after
    assert "        self._seek_each(partitions, beginnings, ends, consumer=consumer)\n" in after
    assert "        *,\n        consumer: RebalanceConsumer,\n    ) -> None:\n" in after
    assert "self.consumer" not in after
    assert "listener = RestoreOnAssign(recover=lambda: None)\n" in after
    findings = check_source(after.encode(), "app.py").findings
    assert [f.code for f in findings if f.code.startswith("KRB2")] == []


def test_the_aiokafka_fixture_awaits_the_helper_with_the_view() -> None:
    source = (FIXTURES / "listener_helper_methods_aiokafka.py").read_text()
    assert _krb201(source) == [True]
    after, manual = _migrate(source)
    assert manual == []
    assert "    async def reset_offsets(self, *, consumer: RebalanceConsumer) -> None:\n" in after
    assert "                await consumer.seek_to_end(TopicPartition(TOPIC, partition))\n" in after
    assert "        await self.reset_offsets(consumer=consumer)\n" in after
    assert "set_rebalance_listener(consumer, ResetOnAssign())\n" in after


def test_the_migrated_helper_seeks_through_the_view() -> None:
    """The migrated kafka-python listener, run through the listener test harness: the seeks
    its helpers make reach the view (the committed offset where it is in range, else the
    beginning), the helper's error reaches the caller of poll as the callback's."""
    from kafka.structs import TopicPartition
    from rebalance_guard.testing.kafka_python import ListenerHarness

    module = _load(FIXTURES / "migrated" / "listener_helper_methods.py")
    t0, t1 = TopicPartition("raw", 0), TopicPartition("raw", 1)
    listener = module.RestoreOnAssign()
    harness = ListenerHarness(listener)
    harness.set_beginning_offsets({t0: 3, t1: 4})
    harness.set_end_offsets({t0: 50, t1: 60})
    harness.set_committed({t0: 7})
    harness.assign([t0, t1])
    assert sorted(harness.seeks) == [(t0, 7), (t1, 4)]
    assert listener.failure is None
    harness.set_committed({t0: 99})  # past the end: the helper raises, the callback records it
    with pytest.raises(RuntimeError, match="recovery required"):
        harness.rebalance([t0])
    assert isinstance(listener.failure, RuntimeError)


def test_the_migrated_async_helper_seeks_to_the_end_through_the_view() -> None:
    from aiokafka.structs import TopicPartition
    from rebalance_guard.testing.aiokafka import ListenerHarness

    module = _load(FIXTURES / "migrated" / "listener_helper_methods_aiokafka.py")
    t0, t1 = TopicPartition("klines", 0), TopicPartition("klines", 1)
    harness = ListenerHarness(module.ResetOnAssign())
    harness.set_end_offsets({t0: 40, t1: 41})
    asyncio.run(harness.assign([t0, t1]))
    assert sorted(harness.seeks) == [(t0, 40), (t1, 41)]
    assert harness.position(t0) == 40


BASE = """\
import threading

from aiokafka import AIOKafkaConsumer
from kafka import KafkaConsumer
from kafka.consumer.subscription_state import ConsumerRebalanceListener


class Restore(ConsumerRebalanceListener):
    def __init__(self, consumer, name="raw"):
        self.consumer = consumer
        self.name = name

    def on_partitions_revoked(self, revoked):
        self.consumer.commit()

    def on_partitions_assigned(self, assigned):
        self._restore(assigned)

    def _restore(self, partitions):
        for tp in partitions:
            self.consumer.seek(tp, 0)
{extra}

consumer = KafkaConsumer(group_id="g")
consumer.subscribe(["a"], listener=Restore(consumer))
"""


def _base(extra: str = "", old: str = "", new: str = "") -> str:
    source = BASE.format(extra=textwrap.indent(textwrap.dedent(extra), "    ") if extra else "")
    assert old in source
    return source.replace(old, new, 1) if old else source


ASYNC = """\
from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener


class Reset(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    async def reset(self):
        await self.consumer.seek_to_end()

    async def on_partitions_revoked(self, revoked):
        pass

    async def on_partitions_assigned(self, assigned):
        await self.reset()


consumer = AIOKafkaConsumer(group_id="g")
consumer.subscribe(["a"], listener=Reset(consumer))
"""


def test_the_base_case_migrates() -> None:
    """The cases below break this one in one way each."""
    after, manual = _migrate(_base())
    assert manual == []
    assert (
        "    def _restore(self, partitions, *, consumer):\n        for tp in partitions:\n            consumer.seek(tp, 0)\n"
        in after
    )
    assert "        self._restore(assigned, consumer=consumer)\n" in after
    after, manual = _migrate(ASYNC)
    assert manual == []
    assert (
        "    async def reset(self, *, consumer):\n        await consumer.seek_to_end()\n" in after
    )


def _kept(line: int, method: str, why: str, cls: str = "Restore") -> str:
    return (
        f"the consumer injected into {cls}() is also used at line {line}, in {method}(), which a "
        f"callback calls, and {why}; kept (the callbacks now use the view, {method}() the "
        "injected consumer), remove it by hand"
    )


#: (case id, source, the refusal at the injected parameter): each keeps the injection.
REFUSED = [
    ("decorated", _base(old="    def _restore", new="    @trace\n    def _restore"), _kept(22, "_restore", "_restore() is decorated, which may change how it is called")),
    ("generator", _base(old="            self.consumer.seek(tp, 0)", new="            self.consumer.seek(tp, 0)\n            yield tp"), _kept(21, "_restore", "_restore() is a generator, whose body may run after the callback returned")),
    ("kwargs", _base(old="_restore(self, partitions)", new="_restore(self, partitions, **options)"), _kept(21, "_restore", "_restore() takes **options, which a call may fill with a consumer")),
    ("every-name", _base(old="        for tp in", new="        consumer = rebalance_consumer = view = None\n        for tp in"), _kept(22, "_restore", "_restore() already uses every name the codemod would give the consumer parameter")),
    ("calls-a-callback", _base(old="            self.consumer.seek(tp, 0)", new="            self.consumer.seek(tp, 0)\n        self.on_partitions_revoked(partitions)"), _kept(21, "_restore", "_restore() uses the callback self.on_partitions_revoked (line 22), which would then need a consumer passed too")),
    ("nested-use", _base(old="            self.consumer.seek(tp, 0)", new="            threading.Timer(1, lambda: self.consumer.seek(tp, 0)).start()"), _kept(21, "_restore", "_restore() uses self.consumer in a nested function or generator (line 21), which may run after the callback")),
    ("not-offered", _base(old="            self.consumer.seek(tp, 0)", new="            self.consumer.seek(tp, 0)\n        self.consumer.poll(0)"), _kept(21, "_restore", "_restore() uses self.consumer other than to call a method the view offers as written (line 22)")),
    ("escapes", _base(old="            self.consumer.seek(tp, 0)", new="            self.consumer.seek(tp, 0)\n        keep(self.consumer)"), _kept(21, "_restore", "_restore() uses self.consumer other than to call a method the view offers as written (line 22)")),
    ("another-object", _base(extra="", old="\n\nconsumer = Kafka", new="\n\nclass Other:\n    def go(self, listener):\n        listener._restore(set())\n\n\nconsumer = Kafka"), _kept(21, "_restore", "_restore is also read from listener at line 26, which the codemod cannot tell from an instance of Restore")),
    ("outside-callbacks", _base(extra="\ndef close(self):\n    self._restore(set())\n"), _kept(21, "_restore", "_restore() is also called at line 24 from close(), no callback, where no view is at hand")),
    ("passed-as-a-value", _base(old="        self.name = name", new="        self.name = name\n        self.later = self._restore"), _kept(22, "_restore", "self._restore is used without calling it at line 12")),
    ("called-later", _base(old="        self._restore(assigned)", new="        threading.Timer(1, lambda: self._restore(assigned)).start()"), _kept(21, "_restore", "_restore() is called in a nested function or generator at line 17")),
    ("by-name-string", _base(extra="\ndef again(self):\n    getattr(self, \"_restore\")\n"), _kept(21, "_restore", "its name is a string at line 24 (getattr?), which may call it")),
    ("by-name-in-the-class", _base(extra="\nrestore = _restore\n"), _kept(21, "_restore", "the name _restore is used at line 23, which may be that method")),
    ("not-awaited", ASYNC.replace("        await self.reset()", "        self.reset()"), _kept(9, "reset", "the coroutine reset() is not awaited at line 15, so it may run after the view expired", cls="Reset")),
]  # fmt: skip


@pytest.mark.parametrize(
    ("source", "reason"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_what_cannot_be_proven_keeps_the_injection_and_names_the_use(
    source: str, reason: str
) -> None:
    assert _krb201(source) == [False]
    after, manual = _migrate(source)
    # the class itself is migrated (its callbacks take the view), the injection kept
    assert "(RebalanceListener)" in after
    assert "        self.consumer = consumer\n" in after
    line = 5 if "class Reset(" in source else 9  # the injected parameter
    assert manual == [(line, reason)]


def test_a_use_outside_any_helper_keeps_the_injection_silently() -> None:
    """A method no callback calls, nor anything in the class, uses the consumer (the poll
    loop's ``lag()``): not this shape; the consumer stays for it, the callbacks use the view,
    nothing is left to do by hand (KRB201 fixed: shapes/injected_consumer.py)."""
    source = _base(extra="\ndef lag(self):\n    return self.consumer.metrics()\n")
    after, manual = _migrate(source)
    assert manual == []
    assert "        self.consumer = consumer\n" in after  # kept for lag()
    assert "            consumer.seek(tp, 0)\n" in after  # the helper takes the view
    assert "        self._restore(assigned, consumer=consumer)\n" in after


#: What ``tests/codemods/test_refusals.py`` counts as covered for this shape's refusals.
REASONS = [reason for *_, reason in REFUSED]
