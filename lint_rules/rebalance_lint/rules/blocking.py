"""KRB105 and KRB108: calls that block where a rebalance callback must not block."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rebalance_lint.analysis.clients import KAFKA_PYTHON_BLOCKING
from rebalance_lint.analysis.model import Analysis, Callback, Effect
from rebalance_lint.rules.rule import Hit, KindCase, Rule

BLOCKING_CALL_ON_IO_THREAD = Rule(
    code="KRB105",
    name="blocking-call-on-injected-kafka-python-consumer",
    kinds={
        "kafka_python_3": KindCase(
            "risk",
            "a blocking call on the consumer a synchronous kafka-python listener was given",
            "it works on kafka-python 2, which runs listeners on the polling thread, and "
            "raises `RuntimeError` on kafka-python 3, which runs them on its IO thread. The "
            "code does not say which major it runs on (requirements files do), so the "
            "finding names kafka-python 3 as its condition.",
        ),
        "kafka_python_3_async": KindCase(
            "bug",
            "a blocking call on the consumer an async kafka-python listener was given",
            "`async def` listener callbacks exist only on kafka-python 3 "
            "(`AsyncConsumerRebalanceListener`), which awaits them on its IO thread: the "
            "call raises `RuntimeError` every time it runs.",
        ),
    },
    template=(
        "blocking {method}() on an injected kafka-python consumer inside {callback}: "
        "kafka-python 3 runs listeners on its IO thread and raises RuntimeError; "
        "use rebalance_guard.kafka_python.{base} and {use} on the view"
    ),
    rationale=(
        "kafka-python 3 calls listener methods on the consumer's IO thread; a blocking "
        "consumer call from there (`commit`, `committed`, `position`, offset queries) "
        "raises `RuntimeError: Cannot block on net.run() from the IO thread itself`. "
        "rebalance_guard runs the callback on a worker thread and hands it a view on which "
        "these calls work."
    ),
    fix=(
        "Derive from `rebalance_guard.kafka_python.RebalanceListener` and call the "
        "consumer methods on the view the callback receives; rebalance_guard runs the "
        "callback where blocking calls work. For `async def` callbacks, derive from "
        "`AsyncRebalanceListener` and await those methods on its view (each runs off the "
        "IO thread)."
    ),
    invalid=(
        """\
from kafka import ConsumerRebalanceListener

class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    def on_partitions_revoked(self, revoked):
        self.consumer.commit()

    def on_partitions_assigned(self, assigned):
        pass
""",
    ),
    valid=(
        """\
from rebalance_guard.kafka_python import RebalanceListener

class Listener(RebalanceListener):
    def on_partitions_revoked(self, partitions, consumer):
        consumer.commit()

    def on_partitions_assigned(self, partitions, consumer):
        pass

    def on_partitions_lost(self, partitions, consumer):
        pass
""",
    ),
)


BLOCKING_WORK_IN_CALLBACK = Rule(
    code="KRB108",
    name="blocking-work-in-callback",
    kinds={
        "blocking": KindCase(
            "risk",
            "sleeping or synchronous I/O in a rebalance callback",
            "it works while the work is short; it breaks the rebalance when it lasts longer "
            "than the group allows (`max.poll.interval.ms`; the session timeout where the "
            "callback also holds heartbeats: kafka-python 3, aiokafka, asyncio code).",
        ),
    },
    template=(
        "{call}() blocks inside {callback}: {why}; "
        "keep rebalance callbacks short and move slow work out of them"
    ),
    rationale=(
        "While a callback runs the consumer neither polls nor (in kafka-python 3 and "
        "aiokafka) heartbeats; sleeping or doing synchronous network I/O there stretches the "
        "rebalance for the whole group and can exceed `max.poll.interval.ms`."
    ),
    fix=(
        "Keep callbacks short: hand slow work to a worker (and wait for it outside the "
        "rebalance), use `await asyncio.sleep` in async code."
    ),
    invalid=(
        """\
import time
from confluent_kafka import Consumer

def on_assign(consumer, partitions):
    time.sleep(5)

c = Consumer({"group.id": "g"})
c.subscribe(["orders"], on_assign=on_assign)
""",
    ),
    valid=(
        """\
import time
from confluent_kafka import Consumer

def on_assign(consumer, partitions):
    print("assigned", partitions, time.monotonic())

c = Consumer({"group.id": "g"})
c.subscribe(["orders"], on_assign=on_assign)
""",
    ),
)


@BLOCKING_CALL_ON_IO_THREAD.on_effects
def blocking_on_io_thread(effect: Effect, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    if callback.client != "kafka_python" or callback.api != "legacy":
        return
    if (
        effect.kind == "call"
        and effect.name in KAFKA_PYTHON_BLOCKING
        and effect.origin == "injected"
    ):
        awaited = isinstance(callback.func, ast.AsyncFunctionDef)
        yield BLOCKING_CALL_ON_IO_THREAD.hit(
            effect.anchor,
            case="kafka_python_3_async" if awaited else "kafka_python_3",
            method=effect.name,
            callback=effect.label(callback.label),
            base="AsyncRebalanceListener" if awaited else "RebalanceListener",
            use="await it" if awaited else "call it",
        )


@BLOCKING_WORK_IN_CALLBACK.on_effects
def blocking_work(effect: Effect, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    if effect.kind != "blocking":
        return
    if isinstance(callback.func, ast.AsyncFunctionDef):
        why = "it blocks the event loop, heartbeats included (await an async equivalent)"
    else:
        why = "the consumer can neither poll nor finish the rebalance meanwhile"
    yield BLOCKING_WORK_IN_CALLBACK.hit(
        effect.anchor, call=effect.name, callback=effect.label(callback.label), why=why
    )
