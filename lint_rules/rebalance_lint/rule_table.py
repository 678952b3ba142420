"""The one table of KRB codes: message template, fixability, rationale and examples.

Everything user-facing is generated from here: the messages the rules emit, the README
table and the ``docs/rules/KRBnnn.md`` pages (``python -m rebalance_lint.docs --write``).
The INVALID example of each rule must trigger it and the VALID one must not; a test checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MIGRATE = "(fixable: rebalance-guard migrate)"


@dataclass(frozen=True)
class Rule:
    """One KRB code; ``template`` is ``str.format``-ed with the fields and ends with the fix."""

    code: str
    name: str
    template: str
    fixable: bool
    rationale: str
    fix: str
    invalid: str
    valid: str

    def message(self, **fields: Any) -> str:
        return self.template.format(**fields)


RULES: tuple[Rule, ...] = (
    Rule(
        code="KRB101",
        name="forbidden-consumer-call-in-callback",
        template=(
            "{method} on the consumer inside {callback} {why}; "
            "do it outside the callback (not on the rebalance view)"
        ),
        fixable=False,
        rationale=(
            "A rebalance callback runs inside `poll()`. Polling again re-enters the group "
            "protocol, closing the consumer tears it down mid-rebalance, and changing the "
            "subscription or assignment from the callback corrupts the rebalance in progress. "
            "KIP-1306 leaves these methods off the `RebalanceConsumer` view."
        ),
        fix=(
            "Move polling, closing and subscription changes out of the callback: do them in "
            "the poll loop after `poll()` returns. Inside the callback use only what the view"
            " offers (commit, seek, position, pause, ...)."
        ),
        invalid="""\
from confluent_kafka import Consumer

def on_revoke(consumer, partitions):
    consumer.poll(0)  # drain before giving the partitions up

c = Consumer({"group.id": "g"})
c.subscribe(["orders"], on_revoke=on_revoke)
""",
        valid="""\
from confluent_kafka import Consumer

def on_revoke(consumer, partitions):
    consumer.commit(asynchronous=False)

c = Consumer({"group.id": "g"})
c.subscribe(["orders"], on_revoke=on_revoke)
""",
    ),
    Rule(
        code="KRB102",
        name="consumer-escapes-callback",
        template=(
            "the {what} escapes {callback} ({how}); it is valid only while the callback "
            "runs: keep the data (partitions, offsets), not the consumer"
        ),
        fixable=False,
        rationale=(
            "The view a KIP-1306 callback receives expires when the callback returns, and the "
            "full consumer a confluent callback receives must not be driven from elsewhere "
            "mid-rebalance. Storing either in an attribute, a global, a container or a closure "
            "that outlives the callback turns a later call into an error or a race."
        ),
        fix=(
            "Copy what you need (partitions, positions, offsets) into your own state inside "
            "the callback; never keep the consumer or the view, or a closure or bound method "
            "that holds it."
        ),
        invalid="""\
from rebalance_guard.kafka_python import RebalanceListener

class Listener(RebalanceListener):
    def on_partitions_assigned(self, partitions, consumer):
        self.consumer = consumer

    def on_partitions_revoked(self, partitions, consumer):
        pass
""",
        valid="""\
from rebalance_guard.kafka_python import RebalanceListener

class Listener(RebalanceListener):
    def on_partitions_assigned(self, partitions, consumer):
        self.positions = {tp: consumer.position(tp) for tp in partitions}

    def on_partitions_revoked(self, partitions, consumer):
        pass
""",
    ),
    Rule(
        code="KRB103",
        name="async-commit-on-revoke",
        template=(
            "asynchronous commit ({what}) in {callback}: it can land after the partitions "
            "moved to another member (duplicates); commit synchronously ({fix})"
        ),
        fixable=False,
        rationale=(
            "Revocation is the last moment this member owns the partitions. An asynchronous "
            "commit returns at once and may reach the broker after the new owner has started "
            "from the previous offset, so records are processed twice. confluent-kafka's bare "
            "`commit()` is asynchronous by default."
        ),
        fix=(
            "Commit synchronously in the revocation callback: `commit()` on kafka-python and "
            "on the rebalance_guard views, `commit(asynchronous=False)` on raw "
            "confluent-kafka."
        ),
        invalid="""\
from confluent_kafka import Consumer

def on_revoke(consumer, partitions):
    consumer.commit()

c = Consumer({"group.id": "g"})
c.subscribe(["orders"], on_revoke=on_revoke, on_lost=lambda consumer, partitions: None)
""",
        valid="""\
from confluent_kafka import Consumer

def on_revoke(consumer, partitions):
    consumer.commit(asynchronous=False)

c = Consumer({"group.id": "g"})
c.subscribe(["orders"], on_revoke=on_revoke, on_lost=lambda consumer, partitions: None)
""",
    ),
    Rule(
        code="KRB104",
        name="commit-on-lost",
        template=(
            "{method} in {callback}, which runs when partitions are lost{via}: they are "
            "already owned by another member and the commit fails; {fix}"
        ),
        fixable=False,
        rationale=(
            "Lost partitions (session timeout, fencing) already belong to someone else; a "
            "commit for them fails. The trap is indirect: kafka-python 3 and rebalance_guard "
            "listeners default `on_partitions_lost` to `on_partitions_revoked`, and "
            "confluent-kafka delivers lost partitions to `on_revoke` when no `on_lost` is given, "
            "so a committing revoke also runs on loss."
        ),
        fix=(
            "Do not commit for lost partitions: override `on_partitions_lost` (or pass "
            "`on_lost=`) with a callback that discards state instead of committing."
        ),
        invalid="""\
from rebalance_guard.kafka_python import RebalanceListener

class Listener(RebalanceListener):
    def on_partitions_revoked(self, partitions, consumer):
        consumer.commit()

    def on_partitions_assigned(self, partitions, consumer):
        pass
""",
        valid="""\
from rebalance_guard.kafka_python import RebalanceListener

class Listener(RebalanceListener):
    def on_partitions_revoked(self, partitions, consumer):
        consumer.commit()

    def on_partitions_assigned(self, partitions, consumer):
        pass

    def on_partitions_lost(self, partitions, consumer):
        pass  # owned elsewhere already: nothing to commit
""",
    ),
    Rule(
        code="KRB105",
        name="blocking-call-on-injected-kafka-python-consumer",
        template=(
            "blocking {method}() on an injected kafka-python consumer inside {callback}: "
            "kafka-python 3 runs listeners on its IO thread and raises RuntimeError; "
            "use rebalance_guard.kafka_python.RebalanceListener and call it on the view"
        ),
        fixable=False,
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
            "callback where blocking calls work."
        ),
        invalid="""\
from kafka import ConsumerRebalanceListener

class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    def on_partitions_revoked(self, revoked):
        self.consumer.commit()

    def on_partitions_assigned(self, assigned):
        pass
""",
        valid="""\
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
    Rule(
        code="KRB106",
        name="consumer-coroutine-not-awaited",
        template=(
            "{method}() returns a coroutine that {callback} never awaits: the {effect} "
            "silently never happens; {fix}"
        ),
        fixable=False,
        rationale=(
            "aiokafka's `commit`, `seek_to_*`, `position`, `committed` and offset queries are "
            "coroutines. Calling one without `await` creates a coroutine object and drops it: "
            "nothing is committed or moved, and the only trace is a RuntimeWarning."
        ),
        fix=(
            "`await` every aiokafka consumer coroutine; a callback that needs one must be "
            "`async def`."
        ),
        invalid="""\
from aiokafka import ConsumerRebalanceListener

class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    async def on_partitions_revoked(self, revoked):
        self.consumer.commit()

    async def on_partitions_assigned(self, assigned):
        pass
""",
        valid="""\
from aiokafka import ConsumerRebalanceListener

class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    async def on_partitions_revoked(self, revoked):
        await self.consumer.commit()

    async def on_partitions_assigned(self, assigned):
        pass
""",
    ),
    Rule(
        code="KRB107",
        name="pause-without-repause-on-assign",
        template=(
            "pause() on a group-subscribed consumer and no assigned callback pauses again: "
            "an eager rebalance drops pause state and the partitions start flowing; "
            "re-apply the pause in on_partitions_assigned / on_assign"
        ),
        fixable=False,
        rationale=(
            "With the eager protocol every rebalance revokes and reassigns all partitions, and "
            "the reassigned partitions start unpaused. Back-pressure built on `pause()` then "
            "silently stops working after the first rebalance unless the assigned callback "
            "pauses again. This holds for kafka-python and aiokafka; librdkafka (confluent-kafka) "
            "keeps a partition's pause flag across rebalances, so confluent consumers are exempt."
        ),
        fix=(
            "Remember what you paused and pause it again in `on_partitions_assigned` (or "
            "`on_assign`), or use the cooperative protocol."
        ),
        invalid="""\
from kafka import KafkaConsumer

consumer = KafkaConsumer(group_id="g")
consumer.subscribe(["orders"])
consumer.pause(*consumer.assignment())
""",
        valid="""\
from kafka import ConsumerRebalanceListener, KafkaConsumer

paused = set()

class Repause(ConsumerRebalanceListener):
    def on_partitions_revoked(self, revoked):
        pass

    def on_partitions_assigned(self, assigned):
        consumer.pause(*(tp for tp in assigned if tp in paused))

consumer = KafkaConsumer(group_id="g")
consumer.subscribe(["orders"], listener=Repause())
consumer.pause(*consumer.assignment())
""",
    ),
    Rule(
        code="KRB108",
        name="blocking-work-in-callback",
        template=(
            "{call}() blocks inside {callback}: {why}; "
            "keep rebalance callbacks short and move slow work out of them"
        ),
        fixable=False,
        rationale=(
            "While a callback runs the consumer neither polls nor (in kafka-python 3 and "
            "aiokafka) heartbeats; sleeping or doing synchronous network I/O there stretches the "
            "rebalance for the whole group and can exceed `max.poll.interval.ms`."
        ),
        fix=(
            "Keep callbacks short: hand slow work to a worker (and wait for it outside the "
            "rebalance), use `await asyncio.sleep` in async code."
        ),
        invalid="""\
import time
from confluent_kafka import Consumer

def on_assign(consumer, partitions):
    time.sleep(5)

c = Consumer({"group.id": "g"})
c.subscribe(["orders"], on_assign=on_assign)
""",
        valid="""\
import time
from confluent_kafka import Consumer

def on_assign(consumer, partitions):
    print("assigned", partitions, time.monotonic())

c = Consumer({"group.id": "g"})
c.subscribe(["orders"], on_assign=on_assign)
""",
    ),
    Rule(
        code="KRB109",
        name="callback-signature",
        template="{callback} has the wrong signature for {client}: {problem}; {fix}",
        fixable=False,
        rationale=(
            "Each client calls its callbacks with fixed arguments: kafka-python and aiokafka "
            "listeners get `(partitions)`, confluent-kafka callbacks `(consumer, partitions)`, "
            "rebalance_guard listeners `(partitions, consumer)`. A signature written for "
            "another client fails with TypeError at the first rebalance, or silently swaps the "
            "consumer and the partitions."
        ),
        fix=(
            "Match the client's calling convention: `(partitions)` for kafka-python/aiokafka "
            "listeners, `(consumer, partitions)` for confluent callbacks, `(partitions, "
            "consumer)` for rebalance_guard listeners."
        ),
        invalid="""\
from kafka import ConsumerRebalanceListener

class Listener(ConsumerRebalanceListener):
    def on_partitions_revoked(self, consumer, revoked):
        pass

    def on_partitions_assigned(self, assigned):
        pass
""",
        valid="""\
from kafka import ConsumerRebalanceListener

class Listener(ConsumerRebalanceListener):
    def on_partitions_revoked(self, revoked):
        pass

    def on_partitions_assigned(self, assigned):
        pass
""",
    ),
    Rule(
        code="KRB110",
        name="assign-inside-confluent-on-assign",
        template=(
            "{method}() inside confluent callback {callback}: under KIP-1306 the client owns "
            "the assignment; {fix}"
        ),
        fixable=False,
        rationale=(
            "Raw confluent-kafka code sets start offsets by calling `assign()` or "
            "`incremental_assign()` from `on_assign`; that works on confluent but not on the "
            "KIP-1306 view, where assignment belongs to the client and offsets are set with "
            "`seek()`. A separate code, so teams staying on raw confluent can disable it."
        ),
        fix=(
            "Set start offsets with `seek()` on the rebalance_guard view; the adapter assigns"
            " the partitions itself."
        ),
        invalid="""\
from confluent_kafka import Consumer

def on_assign(consumer, partitions):
    for tp in partitions:
        tp.offset = 0
    consumer.assign(partitions)

c = Consumer({"group.id": "g"})
c.subscribe(["orders"], on_assign=on_assign)
""",
        valid="""\
from confluent_kafka import Consumer

def on_assign(consumer, partitions):
    print("assigned", partitions)

c = Consumer({"group.id": "g"})
c.subscribe(["orders"], on_assign=on_assign)
""",
    ),
    Rule(
        code="KRB201",
        name="consumer-injected-into-listener",
        template=(
            "consumer injected into listener {cls} through __init__ ({param}): "
            "take the consumer the callback receives instead " + MIGRATE
        ),
        fixable=True,
        rationale=(
            "kafka-python and aiokafka do not pass the consumer to callbacks, so listeners "
            "receive the full consumer through their constructor and can call anything on it "
            "at any time. KIP-1306 callbacks receive a restricted view instead."
        ),
        fix=(
            "Run `rebalance-guard migrate PATH`: the listener becomes a rebalance_guard "
            "`RebalanceListener` that uses the view it receives."
        ),
        invalid="""\
from kafka import ConsumerRebalanceListener

class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    def on_partitions_revoked(self, revoked):
        pass

    def on_partitions_assigned(self, assigned):
        pass
""",
        valid="""\
from rebalance_guard.kafka_python import RebalanceListener

class Listener(RebalanceListener):
    def on_partitions_revoked(self, partitions, consumer):
        pass

    def on_partitions_assigned(self, partitions, consumer):
        pass
""",
    ),
    Rule(
        code="KRB202",
        name="one-argument-listener",
        template=(
            "{cls} is a one-argument {client} listener: derive from "
            "rebalance_guard.{module}.RebalanceListener with (partitions, consumer) methods "
            + MIGRATE
        ),
        fixable=True,
        rationale=(
            "A client base class listener has no way to reach the consumer safely. The "
            "rebalance_guard base keeps the client's method names and adds the view as the "
            "second argument."
        ),
        fix=(
            "Run `rebalance-guard migrate PATH`: the class derives from "
            "`rebalance_guard.<client>.RebalanceListener` with `(partitions, consumer)` "
            "methods."
        ),
        invalid="""\
from aiokafka import ConsumerRebalanceListener

class Listener(ConsumerRebalanceListener):
    async def on_partitions_revoked(self, revoked):
        pass

    async def on_partitions_assigned(self, assigned):
        pass
""",
        valid="""\
from rebalance_guard.aiokafka import RebalanceListener

class Listener(RebalanceListener):
    async def on_partitions_revoked(self, partitions, consumer):
        pass

    async def on_partitions_assigned(self, partitions, consumer):
        pass
""",
    ),
    Rule(
        code="KRB203",
        name="listener-passed-to-subscribe",
        template="{what} passed to subscribe(): {fix} " + MIGRATE,
        fixable=True,
        rationale=(
            "KIP-1306 separates the listener from the subscription: "
            "`set_rebalance_listener(consumer, listener)` is legal before or after "
            "`subscribe()` and hands every callback a view."
        ),
        fix=(
            "Run `rebalance-guard migrate PATH`: the listener is registered with "
            "`set_rebalance_listener` (or `rebalance_guard.confluent_kafka.subscribe`)."
        ),
        invalid="""\
from confluent_kafka import Consumer

def on_assign(consumer, partitions):
    pass

c = Consumer({"group.id": "g"})
c.subscribe(["orders"], on_assign=on_assign)
""",
        valid="""\
from confluent_kafka import Consumer
from rebalance_guard.confluent_kafka import RebalanceListener, set_rebalance_listener

class Listener(RebalanceListener):
    def on_partitions_assigned(self, partitions, consumer):
        pass

c = Consumer({"group.id": "g"})
set_rebalance_listener(c, Listener())
c.subscribe(["orders"])
""",
    ),
)

BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}
