# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""Which base of a legacy listener class is rebased (``shapes/listener_bases.py``): a mixin
listener (``class SubscribeCommand(AbstractCommand, ConsumerRebalanceListener)``) keeps its
other bases and their order; only the client's base becomes ``RebalanceListener``, a plain
class with no metaclass, no ``__init__`` and no state. The fixture ``listener_mixin.py``
migrates to its twin (test_fixtures.py) and type-checks (test_migrated_type_checks.py)."""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_lint.api import check_source

SOURCE = """
import abc

from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener


class Reporter:
    def report(self, event, partitions):
        print(event, sorted(tp.partition for tp in partitions))


class Tracker({bases}):
    def __init__(self, consumer):
        self.consumer = consumer

    async def on_partitions_revoked(self, revoked):
        await self.consumer.commit()
        self.report("revoked", revoked)

    async def on_partitions_assigned(self, assigned):
        self.report("assigned", assigned)


consumer = AIOKafkaConsumer(group_id="g")
consumer.subscribe(["a"], listener=Tracker(consumer))
"""


def _migrate(bases: str, tail: str = "") -> tuple[str | None, list[tuple[int, str]]]:
    source = textwrap.dedent(SOURCE.format(bases=bases)) + textwrap.dedent(tail)
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok", result
    new = result.new_source.decode() if result.new_source is not None else None
    return new, [(m.line, m.reason) for m in result.manual]


@pytest.mark.parametrize(
    ("bases", "rebased"),
    [
        ("Reporter, ConsumerRebalanceListener", "Reporter, RebalanceListener"),
        ("ConsumerRebalanceListener, Reporter", "RebalanceListener, Reporter"),
    ],
)
def test_only_the_clients_base_is_rebased_in_place(bases: str, rebased: str) -> None:
    source = textwrap.dedent(SOURCE.format(bases=bases))
    fixable = [f.fixable for f in check_source(source.encode(), "app.py").findings if f.code in ("KRB201", "KRB202", "KRB203")]
    assert fixable and all(fixable)  # check says fixable exactly where migrate rewrites
    after, manual = _migrate(bases)
    assert manual == []
    assert after is not None
    assert f"class Tracker({rebased}):\n" in after
    assert "    async def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):\n        await consumer.commit()\n" in after
    assert migrate_source(after.encode(), "app.py").new_source is None  # idempotent
    namespace: dict[str, object] = {}
    classes = after.partition("\nconsumer = ")[0]  # the class statements run: no conflict
    exec(compile(classes, "app.py", "exec"), namespace)
    tracker = namespace["Tracker"]
    assert isinstance(tracker, type) and [c.__name__ for c in tracker.__mro__][1:] == [*rebased.split(", "), "object"]


REFUSED = [
    ("metaclass", "Reporter, ConsumerRebalanceListener, metaclass=abc.ABCMeta", "",
     "listener class Tracker: a metaclass or class keywords; the codemod cannot rebase it safely; by hand, move its callbacks into a class deriving from rebalance_guard's RebalanceListener alone"),
    ("base-twice", "ConsumerRebalanceListener, Reporter, ConsumerRebalanceListener", "",
     "listener class Tracker: other base classes; the codemod cannot rebase it safely; by hand, move its callbacks into a class deriving from rebalance_guard's RebalanceListener alone"),
    ("callback-logging", "Reporter, ConsumerRebalanceListener", "\nReporter.callback_logging = None\n",
     None),
    ("registered-virtually", "Reporter, ConsumerRebalanceListener", "\nTracker.register(dict)\n",
     "listener class Tracker: Tracker.register() makes virtual subclasses, which needs the ABCMeta of the client's base; drop that use first"),
]  # fmt: skip


@pytest.mark.parametrize(("bases", "tail", "reason"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_what_cannot_be_rebased_stays(bases: str, tail: str, reason: str | None) -> None:
    after, manual = _migrate(bases, tail)
    if reason is None:  # set outside the class body: not the shape's business, migrates
        assert after is not None and manual == []
        return
    assert after is None or f"class Tracker({bases}):" in after
    assert reason in [r for _, r in manual]


def test_a_base_defining_callback_logging_stays() -> None:
    source = textwrap.dedent(SOURCE.format(bases="Reporter, ConsumerRebalanceListener")).replace(
        "class Reporter:\n", "class Reporter:\n    callback_logging = True\n\n"
    )
    result = migrate_source(source.encode(), "app.py")
    reason = "listener class Tracker: its base Reporter defines callback_logging, which the rebalance_guard listener base also defines; rename it first"
    assert reason in [m.reason for m in result.manual]


#: What ``tests/codemods/test_refusals.py`` counts as covered for this shape's refusals.
REASONS = [reason for *_, reason in REFUSED if reason is not None] + [
    "listener class Tracker: its base Reporter defines callback_logging, which the rebalance_guard listener base also defines; rename it first",
]
