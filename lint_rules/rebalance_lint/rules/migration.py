"""KRB201-KRB203: migration advice towards KIP-1306 listeners; each has a codemod."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rebalance_lint.analysis.clients import CLIENT_LABEL, GUARD_MODULE, Client, guard_name
from rebalance_lint.analysis.migration import is_fixable
from rebalance_lint.analysis.model import Analysis
from rebalance_lint.rules.rule import Hit, KindCase, Rule

#: The one case of the migration codes: advice, whatever the client.
MIGRATION_ADVICE = {
    "migration": KindCase(
        "advice",
        "always",
        "KIP-1306 migration: the code works today; the rebalance_guard listener does it with "
        "the view.",
    ),
}

CONSUMER_INJECTED_INTO_LISTENER = Rule(
    code="KRB201",
    name="consumer-injected-into-listener",
    kinds=MIGRATION_ADVICE,
    template=(
        "consumer injected into listener {cls} {how}: "
        "take the consumer the callback receives instead"
    ),
    has_codemod=True,
    rationale=(
        "kafka-python and aiokafka do not pass the consumer to callbacks, so listeners "
        "receive the full consumer through their constructor and can call anything on it "
        "at any time. KIP-1306 callbacks receive a restricted view instead. The same holds "
        "when the listener reaches the consumer indirectly, and the message names the path: "
        "through an owner passed to `__init__` (a batching wrapper, a consumer thread, a "
        "runner: `self.runner.consumer`, or an owner method that uses it, "
        "`self.worker.flush()`), through an attribute a framework sets after construction "
        "(`listener.stream = stream`), or as a consumer wrapper registered as its own "
        "listener (`listener=self`, using `self._consumer` in the callbacks), or as a class "
        "defined inside a function that uses that function's consumer variable. One code for "
        "all of them: the fix is the same, use the consumer the callback receives; whether "
        "`rebalance-guard migrate` can rewrite a given site is the migration planner's "
        "answer, shown on each finding."
    ),
    fix=(
        "Run `rebalance-guard migrate PATH`: the listener becomes a rebalance_guard "
        "`RebalanceListener` that uses the view it receives."
    ),
    invalid=(
        """\
from kafka import ConsumerRebalanceListener

class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    def on_partitions_revoked(self, revoked):
        pass

    def on_partitions_assigned(self, assigned):
        pass
""",
    ),
    valid=(
        """\
from rebalance_guard.kafka_python import RebalanceListener

class Listener(RebalanceListener):
    def on_partitions_revoked(self, partitions, consumer):
        pass

    def on_partitions_assigned(self, partitions, consumer):
        pass
""",
    ),
)


ONE_ARGUMENT_LISTENER = Rule(
    code="KRB202",
    name="one-argument-listener",
    kinds=MIGRATION_ADVICE,
    template=(
        "{cls} is a one-argument {client} listener: derive from "
        "rebalance_guard.{module}.RebalanceListener with (partitions, consumer) methods"
    ),
    has_codemod=True,
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
    invalid=(
        """\
from aiokafka import ConsumerRebalanceListener

class Listener(ConsumerRebalanceListener):
    async def on_partitions_revoked(self, revoked):
        pass

    async def on_partitions_assigned(self, assigned):
        pass
""",
    ),
    valid=(
        """\
from rebalance_guard.aiokafka import RebalanceListener

class Listener(RebalanceListener):
    async def on_partitions_revoked(self, partitions, consumer):
        pass

    async def on_partitions_assigned(self, partitions, consumer):
        pass
""",
    ),
)


LISTENER_PASSED_TO_SUBSCRIBE = Rule(
    code="KRB203",
    name="listener-passed-to-subscribe",
    kinds=MIGRATION_ADVICE,
    template="{what} passed to subscribe(): {fix}",
    has_codemod=True,
    rationale=(
        "KIP-1306 separates the listener from the subscription: "
        "`set_rebalance_listener(consumer, listener)` is legal before or after "
        "`subscribe()` and hands every callback a view."
    ),
    fix=(
        "Run `rebalance-guard migrate PATH`: the listener is registered with "
        "`set_rebalance_listener` (or `rebalance_guard.confluent_kafka.subscribe`)."
    ),
    invalid=(
        """\
from confluent_kafka import Consumer

def on_assign(consumer, partitions):
    pass

c = Consumer({"group.id": "g"})
c.subscribe(["orders"], on_assign=on_assign)
""",
    ),
    valid=(
        """\
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


def has_migration_plan(site: ast.AST, analysis: Analysis) -> bool:
    """Whether ``rebalance-guard migrate`` rewrites this site: a KRB2xx hit's fixability,
    decided by the migration planner (:func:`rebalance_lint.analysis.migration.is_fixable`)."""
    return is_fixable(site, analysis)


@CONSUMER_INJECTED_INTO_LISTENER.per_file
def injected_consumer(analysis: Analysis) -> Iterator[Hit]:
    for listener, arg in analysis.injected:
        yield CONSUMER_INJECTED_INTO_LISTENER.hit(
            arg,
            fixable=has_migration_plan(arg, analysis),
            cls=listener.node.name,
            how=f"through __init__ ({arg.arg})",
        )
    for found in analysis.indirect:
        if found.how == "owner":
            how = f"through __init__ ({found.param}), reached as {found.path}"
        elif found.how == "attribute":
            how = (
                f"after construction (attribute .{found.param} set at {found.where}), "
                f"reached as {found.path}"
            )
        elif found.how == "closure":
            how = f"through a closure over {found.where}'s {found.path}"
        else:
            how = f"as its own listener (listener=self at {found.where}), reached as {found.path}"
        yield CONSUMER_INJECTED_INTO_LISTENER.hit(
            found.anchor,
            fixable=has_migration_plan(found.anchor, analysis),
            cls=found.listener.node.name,
            how=how,
        )


@ONE_ARGUMENT_LISTENER.per_file
def one_argument_listener(analysis: Analysis) -> Iterator[Hit]:
    for listener in analysis.listeners:
        if listener.client_base and listener.client is not None:
            yield ONE_ARGUMENT_LISTENER.hit(
                listener.node,
                fixable=has_migration_plan(listener.node, analysis),
                cls=listener.node.name,
                client=CLIENT_LABEL[listener.client],
                module=GUARD_MODULE[listener.client],
            )


@LISTENER_PASSED_TO_SUBSCRIBE.per_file
def listener_in_subscribe(analysis: Analysis) -> Iterator[Hit]:
    for reg in analysis.registrations:
        if reg.guard:
            continue
        if "listener" in reg.roles:
            what = "listener"
        else:
            what = "rebalance callbacks (" + ", ".join(f"{r}=" for r in reg.roles) + ")"
        yield LISTENER_PASSED_TO_SUBSCRIBE.hit(
            reg.anchor,
            fixable=has_migration_plan(reg.call, analysis),
            what=what,
            fix=_registration_fix(reg.client),
        )


def _registration_fix(client: Client | None) -> str:
    if client == "confluent":
        return (
            "pass a RebalanceListener to rebalance_guard.confluent_kafka.subscribe(consumer, "
            "topics, listener) or set_rebalance_listener on its Consumer"
        )
    return (
        "register a RebalanceListener with "
        f"{guard_name(client, 'set_rebalance_listener')}(consumer, listener)"
    )
