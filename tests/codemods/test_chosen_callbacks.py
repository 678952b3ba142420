# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""A confluent callback chosen at run time among defs of the function (a shape from real
code: ``assign_callback = assign_beginning`` or ``assign_end`` under an ``if``, then
``subscribe(on_assign=assign_callback)``; or
``on_assign=assign_beginning if start else assign_end``): the listener class takes the
registered values in its ``__init__`` at the ``subscribe()`` and calls the chosen one with the
view; the defs stay and take the view (``shapes/chosen_callbacks.py``). Refused, with the next
step, wherever the values it may have at the ``subscribe()`` are not all seen, and where one
may be None, which confluent does not take as "no callback" (its Consumer.subscribe() raises
TypeError for it: the last test)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import confluent_kafka
import pytest
from libcst.codemod import CodemodTest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.commands import MigrateRebalanceListeners
from rebalance_lint.api import check_source

FIXTURES = Path(__file__).parent / "fixtures"


class TestChosenCallbacks(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_a_variable_bound_to_one_of_two_defs(self) -> None:
        before = """
            from confluent_kafka import OFFSET_BEGINNING, OFFSET_END, Consumer


            def messages(config, topic, start):
                def assign_beginning(assigned_consumer, assigned_partitions):
                    for p in assigned_partitions:
                        p.offset = OFFSET_BEGINNING
                    assigned_consumer.assign(assigned_partitions)

                def assign_end(assigned_consumer, assigned_partitions):
                    for p in assigned_partitions:
                        p.offset = OFFSET_END
                    assigned_consumer.assign(assigned_partitions)

                if start == "earliest":
                    assign_callback = assign_beginning
                else:
                    assign_callback = assign_end

                with Consumer(config) as consumer:
                    consumer.subscribe([topic], on_assign=assign_callback)
                    return consumer.poll(1.0)
        """
        after = """
            from confluent_kafka import OFFSET_BEGINNING, OFFSET_END, Consumer, TopicPartition
            from collections.abc import Callable
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            def messages(config, topic, start):
                def assign_beginning(assigned_consumer, assigned_partitions):
                    for p in assigned_partitions:
                        p.offset = OFFSET_BEGINNING
                    for partition in assigned_partitions:
                        assigned_consumer.seek(partition)

                def assign_end(assigned_consumer, assigned_partitions):
                    for p in assigned_partitions:
                        p.offset = OFFSET_END
                    for partition in assigned_partitions:
                        assigned_consumer.seek(partition)

                if start == "earliest":
                    assign_callback = assign_beginning
                else:
                    assign_callback = assign_end

                with Consumer(config) as consumer:
                    class RebalanceCallbacks(RebalanceListener):
                        def __init__(self, on_assign: Callable[[RebalanceConsumer, list[TopicPartition]], None]) -> None:
                            self.on_assign = on_assign

                        def on_partitions_assigned(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                            self.on_assign(consumer, partitions)

                    subscribe(consumer, [topic], RebalanceCallbacks(assign_callback))
                    return consumer.poll(1.0)
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_a_conditional_expression_of_two_defs(self) -> None:
        before = """
            from confluent_kafka import Consumer


            def run(consumer: Consumer, topics: list[str], audit: bool) -> None:
                def quiet(consumer, partitions):
                    consumer.commit(asynchronous=False)

                def loud(consumer, partitions):
                    print("revoked", partitions, consumer.assignment())
                    consumer.commit(asynchronous=False)

                consumer.subscribe(topics, on_revoke=loud if audit else quiet)
                while True:
                    consumer.poll(1.0)
        """
        after = """
            from confluent_kafka import Consumer, TopicPartition
            from collections.abc import Callable
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            def run(consumer: Consumer, topics: list[str], audit: bool) -> None:
                def quiet(consumer, partitions):
                    consumer.commit(asynchronous=False)

                def loud(consumer, partitions):
                    print("revoked", partitions, consumer.assignment())
                    consumer.commit(asynchronous=False)

                class RebalanceCallbacks(RebalanceListener):
                    def __init__(self, on_revoke: Callable[[RebalanceConsumer, list[TopicPartition]], None]) -> None:
                        self.on_revoke = on_revoke

                    def on_partitions_revoked(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                        self.on_revoke(consumer, partitions)

                subscribe(consumer, topics, RebalanceCallbacks(loud if audit else quiet))
                while True:
                    consumer.poll(1.0)
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_aio_callbacks_chosen_are_awaited(self) -> None:
        before = """
            from confluent_kafka.aio import AIOConsumer


            async def main(config, rewind):
                consumer = AIOConsumer(config)

                async def from_start(consumer, partitions):
                    await consumer.pause(partitions)

                async def log_only(consumer, partitions):
                    print("assigned", partitions)

                chosen = log_only
                if rewind:
                    chosen = from_start
                await consumer.subscribe(["t"], on_assign=chosen)
        """
        after = """
            from confluent_kafka.aio import AIOConsumer
            from collections.abc import Awaitable, Callable
            from confluent_kafka import TopicPartition
            from rebalance_guard.confluent_kafka_aio import RebalanceConsumer, RebalanceListener, subscribe


            async def main(config, rewind):
                consumer = AIOConsumer(config)

                async def from_start(consumer, partitions):
                    await consumer.pause(partitions)

                async def log_only(consumer, partitions):
                    print("assigned", partitions)

                chosen = log_only
                if rewind:
                    chosen = from_start

                class RebalanceCallbacks(RebalanceListener):
                    def __init__(self, on_assign: Callable[[RebalanceConsumer, list[TopicPartition]], Awaitable[None]]) -> None:
                        self.on_assign = on_assign

                    async def on_partitions_assigned(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                        await self.on_assign(consumer, partitions)

                await subscribe(consumer, ["t"], RebalanceCallbacks(chosen))
        """
        self.assertCodemod(before, after, expected_warnings=[])


def test_the_fixture_migrates_once_and_checks_clean() -> None:
    """The fixture (tests/codemods/fixtures/chosen_callbacks.py): its 3 sites fixable before,
    migrated to its twin, which migrates to itself and has no finding left."""
    source = (FIXTURES / "chosen_callbacks.py").read_bytes()
    before = check_source(source, "chosen_callbacks.py").findings
    assert [f.fixable for f in before if f.code == "KRB203"] == [True, True, True]
    result = migrate_source(source, "chosen_callbacks.py")
    assert result.status == "ok" and not result.manual, result
    assert result.new_source is not None
    assert migrate_source(result.new_source, "chosen_callbacks.py").new_source is None
    assert not check_source(result.new_source, "chosen_callbacks.py").findings


HEAD = """
from confluent_kafka import OFFSET_END, Consumer


def run(consumer, topics, latest):
    def to_end(consumer, partitions):
        for p in partitions:
            p.offset = OFFSET_END
        consumer.assign(partitions)

    def as_given(consumer, partitions):
        consumer.assign(partitions)
"""
REFUSED = [
    ("bound after the subscribe()",
     "    cb = as_given\n    consumer.subscribe(topics, on_assign=cb)\n    if latest:\n        cb = to_end\n",
     "on_assign= is the variable cb, bound at line 15 after the subscribe(), so the callback registered may not be the one chosen before it; choose it once, before the subscribe() and outside any loop around it, first"),
    ("bound in a loop around the subscribe()",
     "    for topic in topics:\n        cb = to_end if latest else as_given\n        consumer.subscribe([topic], on_assign=cb)\n",
     "on_assign= is the variable cb, bound at line 13 in a loop around the subscribe(), so the callback registered may not be the one chosen before it; choose it once, before the subscribe() and outside any loop around it, first"),
    ("a def also used elsewhere",
     "    cb = to_end if latest else as_given\n    consumer.subscribe(topics, on_assign=cb)\n    to_end(consumer, consumer.assignment())\n",
     "to_end is one of the callbacks on_assign= may be, and is used elsewhere too at line 14, which would break once it takes the rebalance view; use it only as that choice first"),
    ("a binding that is not a def",
     "    cb = as_given\n    if latest:\n        cb = to_end\n    else:\n        cb = lambda c, p: c.assign(p)\n    consumer.subscribe(topics, on_assign=cb)\n",
     "on_assign= may be lambda c, p: c.assign(p) (line 16), which is not a def of this file; make each choice a def on_assign(consumer, partitions) of this file first"),
    ("a None binding (confluent raises TypeError for it)",
     "    cb = None\n    if latest:\n        cb = to_end\n    consumer.subscribe(topics, on_assign=cb)\n",
     "on_assign= may be None (line 12), which confluent does not take as no callback (Consumer.subscribe() raises TypeError: on_assign expects a callable; AIOConsumer calls None at the rebalance); choose a def there too (def on_assign(consumer, partitions) doing what confluent's default does, e.g. consumer.assign(partitions) for on_assign), or subscribe without on_assign= in that case, first"),
    ("a conditional expression choosing None",
     "    consumer.subscribe(topics, on_assign=to_end if latest else None)\n",
     "on_assign= may be None (line 12), which confluent does not take as no callback (Consumer.subscribe() raises TypeError: on_assign expects a callable; AIOConsumer calls None at the rebalance); choose a def there too (def on_assign(consumer, partitions) doing what confluent's default does, e.g. consumer.assign(partitions) for on_assign), or subscribe without on_assign= in that case, first"),
    ("a conditional expression naming a variable",
     "    other = to_end\n    consumer.subscribe(topics, on_assign=to_end if latest else other)\n",
     "on_assign= may be other (line 13), which is not a def of this file; make each choice a def on_assign(consumer, partitions) of this file first"),
    ("bound other than by an assignment",
     "    cb = to_end\n    for cb in [as_given]:\n        pass\n    consumer.subscribe(topics, on_assign=cb)\n",
     "on_assign= is the variable cb, bound at line 13 other than by cb = <a def, or a conditional expression of defs>; bind it only that way first"),
    ("rebound by a nested function",
     "    cb = to_end if latest else as_given\n\n    def pick():\n        nonlocal cb\n        cb = as_given\n\n    pick()\n    consumer.subscribe(topics, on_assign=cb)\n",
     "on_assign= is the variable cb, which a nested function rebinds (nonlocal, line 15), so the codemod cannot see every value it holds at the subscribe(); bind it only in this function first"),
    ("the variable read elsewhere too",
     "    cb = to_end if latest else as_given\n    print(cb)\n    consumer.subscribe(topics, on_assign=cb)\n",
     "on_assign= is the variable cb, also used at line 13, where it would name a callback taking the rebalance view; use it only as this subscribe()'s argument first"),
    ("one def in two roles",
     "    consumer.subscribe(topics, on_assign=to_end if latest else as_given, on_revoke=as_given if latest else to_end)\n",
     "as_given may be both on_assign= and on_revoke=, which it would take the view for differently; split it into one def per role first"),
    ("a subscribe() sharing its line",
     "    cb = to_end if latest else as_given\n    consumer.subscribe(topics, on_assign=cb); print(cb)\n",
     "the subscribe() choosing its callbacks is not a statement of its own, so the listener class has no place next to it; put it on a line of its own first"),
    ("a def the view does not do for",
     "    def polling(consumer, partitions):\n        consumer.poll(0)\n\n    consumer.subscribe(topics, on_assign=polling if latest else to_end)\n",
     "polling calls consumer.poll() (line 13), which the rebalance view does not offer (KIP-1306); move that call out of the callback first"),
]  # fmt: skip
REASONS = [reason for *_, reason in REFUSED]


@pytest.mark.parametrize(("name", "tail", "reason"), REFUSED, ids=[c[0] for c in REFUSED])
def test_what_is_not_provably_the_chosen_callback_stays_refused(
    name: str, tail: str, reason: str
) -> None:
    source = textwrap.dedent(HEAD).lstrip() + tail
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and result.new_source is None, result
    assert [m.reason for m in result.manual] == [reason]


@pytest.mark.parametrize("keyword", ["on_assign", "on_revoke", "on_lost"])
def test_confluent_takes_none_for_no_callback_nowhere(keyword: str) -> None:
    """Why a None choice is refused: confluent-kafka's Consumer.subscribe() rejects None for
    each callback (a migration doing nothing for it would make a failing subscribe() work;
    AIOConsumer wraps whatever is passed by keyword and calls it at the rebalance)."""
    consumer = confluent_kafka.Consumer(
        {"group.id": "chosen-callbacks", "bootstrap.servers": "127.0.0.1:9"}
    )
    try:
        with pytest.raises(TypeError, match=f"{keyword} expects a callable"):
            consumer.subscribe(["t"], **{keyword: None})
    finally:
        consumer.close()


def test_a_literal_none_callback_is_refused_too() -> None:
    """The None premise checked at the dispatcher: ``on_lost=None`` written out is not "no
    callback" either (confluent's subscribe() raises TypeError on it), so dropping it would
    make a failing subscribe() work. The refusal says so with the next step."""
    source = (
        "from confluent_kafka import Consumer\n\n\n"
        "def on_revoke(consumer, partitions):\n    print(partitions)\n\n\n"
        "c = Consumer({})\n"
        "c.subscribe(['t'], on_revoke=on_revoke, on_lost=None)\n"
    )
    result = migrate_source(source.encode(), "app.py")
    assert result.new_source is None
    assert [m.line for m in result.manual] == [9]
    assert result.manual[0].reason.startswith("on_lost=None is not a callback")
