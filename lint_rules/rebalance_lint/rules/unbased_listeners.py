"""KRB114: a listener given to kafka-python's or aiokafka's ``subscribe()`` that derives from
no ``ConsumerRebalanceListener``: an instance of such a class of the file (bug), or ``self``
in one of its methods (risk: a subclass defined elsewhere could add the base)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rebalance_lint.analysis.migration_facts import FileFacts, file_facts, self_class
from rebalance_lint.analysis.model import Analysis, Registration
from rebalance_lint.analysis.unbased_classes import rejected_self, unbased_classes
from rebalance_lint.rules.rule import Hit, KindCase, Rule

LISTENER_WITHOUT_BASE = Rule(
    code="KRB114",
    name="listener-without-base",
    kinds={
        "unbased": KindCase(
            "bug",
            "an instance of a class of the file with no base class (or only `object`, or only "
            "such classes of the file) given as kafka-python's or aiokafka's "
            "`subscribe(listener=...)`",
            "both clients check `isinstance(listener, ConsumerRebalanceListener)` and raise "
            "TypeError: the consumer never subscribes.",
        ),
        "self": KindCase(
            "risk",
            "`subscribe(listener=self)` in a method of such a class, which no class of the file "
            "derives from",
            "the same TypeError, unless a subclass defined in another file derives from the "
            "client's listener and is what runs the method.",
        ),
    },
    template=(
        "{cls} derives from no ConsumerRebalanceListener, so {client}'s subscribe() raises "
        "TypeError (it checks isinstance){unless}; derive {cls} from {base}"
    ),
    rationale=(
        "A rebalance listener looks like a duck-typed protocol (two methods, "
        "`on_partitions_revoked` and `on_partitions_assigned`), but neither Python client "
        "takes it as one: kafka-python's `KafkaConsumer.subscribe()` raises `TypeError: "
        "listener must be a ConsumerRebalanceListener...` and aiokafka's "
        "`AIOKafkaConsumer.subscribe()` raises `TypeError: listener should be an instance of "
        "ConsumerRebalanceListener` for any other object, so the code never consumes. Only a "
        "class of the file with no base at all, or whose bases are only such classes of the "
        "file (a `Mixin` with no base), is reported: any other base may derive from the "
        "client's listener."
    ),
    fix=(
        "Derive the class from the client's `ConsumerRebalanceListener` (kafka-python: "
        "`from kafka import ConsumerRebalanceListener`; aiokafka: `from aiokafka.abc import "
        "ConsumerRebalanceListener`), then run `rebalance-guard migrate` to move it to "
        "rebalance_guard's `RebalanceListener`, whose methods receive the rebalance view."
    ),
    invalid=(
        """\
from kafka import KafkaConsumer

class Listener:
    def on_partitions_revoked(self, revoked):
        print("revoked", revoked)

    def on_partitions_assigned(self, assigned):
        print("assigned", assigned)

consumer = KafkaConsumer(group_id="g")
consumer.subscribe(["orders"], listener=Listener())
""",
        """\
from aiokafka import AIOKafkaConsumer

class Reader:
    async def open(self):
        self.consumer = AIOKafkaConsumer(group_id="g")
        self.consumer.subscribe(["orders"], listener=self)

    def on_partitions_revoked(self, revoked):
        print("revoked", revoked)

    def on_partitions_assigned(self, assigned):
        print("assigned", assigned)
""",
    ),
    valid=(
        """\
from kafka import ConsumerRebalanceListener, KafkaConsumer

class Listener(ConsumerRebalanceListener):
    def on_partitions_revoked(self, revoked):
        print("revoked", revoked)

    def on_partitions_assigned(self, assigned):
        print("assigned", assigned)

consumer = KafkaConsumer(group_id="g")
consumer.subscribe(["orders"], listener=Listener())
""",
    ),
)

_BASES = {
    "kafka_python": "kafka.ConsumerRebalanceListener",
    "aiokafka": "aiokafka.abc.ConsumerRebalanceListener",
}
_CLIENTS = {"kafka_python": "kafka-python", "aiokafka": "aiokafka"}


@LISTENER_WITHOUT_BASE.per_file
def listener_without_base(analysis: Analysis) -> Iterator[Hit]:
    registrations = [
        reg
        for reg in analysis.registrations
        if not reg.guard and reg.client in _BASES and reg.own_subscribe is None
    ]
    if not registrations or analysis.tree is None:
        return
    # A class of the file named after a client's listener base cannot derive from nothing
    # (nor can its name, bound by another class statement too): most files end here.
    based = {listener.node.name for listener in analysis.listeners if listener.client_base}
    created_by: list[tuple[Registration, ast.expr, str]] = []
    facts: FileFacts | None = None  # the planner's bindings, only for a listener=self
    for reg in registrations:
        value = reg.roles.get("listener")
        own = None
        if isinstance(value, ast.Name) and value.id == reg.scope.self_name:
            facts = facts or file_facts(analysis.tree, analysis.text, analysis.imports)
            own = self_class(value, facts)
        if own is not None and own.name not in based and rejected_self(own, analysis.tree):
            assert reg.client is not None and value is not None
            yield LISTENER_WITHOUT_BASE.hit(
                value,
                case="self",
                cls=own.name,
                client=_CLIENTS[reg.client],
                base=_BASES[reg.client],
                unless=", unless a subclass defined elsewhere derives from the client's listener",
            )
            continue
        created = _held(value, reg.scope.node) if isinstance(value, ast.Name) else value
        if (
            value is not None
            and isinstance(created, ast.Call)
            and isinstance(created.func, ast.Name)
            and created.func.id not in based
        ):
            created_by.append((reg, value, created.func.id))
    if not created_by:
        return
    unbased = unbased_classes(analysis.tree)
    for reg, value, name in created_by:
        if name in unbased:
            assert reg.client is not None
            yield LISTENER_WITHOUT_BASE.hit(
                value,
                case="unbased",
                cls=name,
                client=_CLIENTS[reg.client],
                base=_BASES[reg.client],
                unless="",
            )


def _held(name: ast.Name, scope: ast.AST) -> ast.expr | None:
    """The value of ``name = <value>`` when that is the only statement of the registering
    function (or module) binding the name: not a parameter, no ``global``/``nonlocal``, no
    other assignment, loop or ``with`` target, import or ``del`` of it anywhere in it."""
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        args = scope.args
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        if any(p is not None and p.arg == name.id for p in params):
            return None
    found: list[ast.AST] = []
    for node in ast.walk(scope):
        if isinstance(node, ast.Name) and node.id == name.id and not isinstance(node.ctx, ast.Load):
            found.append(node)
        elif name.id in _declared(node):
            return None
    if len(found) != 1:
        return None
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and node.targets == [found[0]]:
            return node.value
    return None


def _declared(node: ast.AST) -> list[str]:
    """The names a ``global``/``nonlocal`` statement or an import binds."""
    if isinstance(node, ast.Global | ast.Nonlocal):
        return node.names
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [(a.asname or a.name).partition(".")[0] for a in node.names]
    return []
