"""KRB102: the consumer or view a callback receives is kept beyond the callback."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rebalance_lint.analysis.model import Analysis, Callback, Effect, dotted
from rebalance_lint.analysis.walk import body_nodes, nested_nodes
from rebalance_lint.rules.rule import Hit, KindCase, Rule

CONSUMER_ESCAPES_CALLBACK = Rule(
    code="KRB102",
    name="consumer-escapes-callback",
    kinds={
        "view": KindCase(
            "risk",
            "the rebalance_guard view a listener receives is kept",
            "the view expires when the callback returns: any use of what was kept after "
            "that raises `RebalanceViewExpiredError` (a use during the callback still works).",
        ),
        "consumer": KindCase(
            "advice",
            "the consumer a raw confluent-kafka callback receives is kept",
            "confluent passes the application's own consumer, so keeping it changes nothing "
            "today; once the callback takes the KIP-1306 view, the kept object expires with "
            "the callback. Keep the data, not the consumer, before migrating.",
        ),
    },
    template=(
        "the {what} escapes {callback} ({how}); it is valid only while the callback "
        "runs: keep the data (partitions, offsets), not the consumer"
    ),
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
    invalid=(
        """\
from rebalance_guard.kafka_python import RebalanceListener

class Listener(RebalanceListener):
    def on_partitions_assigned(self, partitions, consumer):
        self.consumer = consumer

    def on_partitions_revoked(self, partitions, consumer):
        pass
""",
    ),
    valid=(
        """\
from rebalance_guard.kafka_python import RebalanceListener

class Listener(RebalanceListener):
    def on_partitions_assigned(self, partitions, consumer):
        self.positions = {tp: consumer.position(tp) for tp in partitions}

    def on_partitions_revoked(self, partitions, consumer):
        pass
""",
    ),
)

#: Methods whose bound method (``consumer.commit``) keeps the consumer alive.
_CONSUMER_METHODS = frozenset(
    {"commit", "commit_async", "committed", "position", "seek", "seek_to_beginning",
     "seek_to_end", "seek_to_committed", "assignment", "pause", "resume", "paused", "poll",
     "consume", "close", "end_offsets", "beginning_offsets", "offsets_for_times"}
)  # fmt: skip
_CONTAINER_METHODS = frozenset(
    {"append", "appendleft", "add", "insert", "extend", "put", "put_nowait", "setdefault"}
)
_DEFERRING_FUNCS = frozenset(
    {"Thread", "Timer", "submit", "call_soon", "call_soon_threadsafe", "call_later", "call_at",
     "create_task", "ensure_future", "start_new_thread"}
)  # fmt: skip


def _param_names(callback: Callback) -> set[str]:
    return {name for name, origin in callback.receivers.items() if origin == "param"}


def _closures(callback: Callback, names: set[str]) -> set[str]:
    """Functions defined in the callback body that capture the consumer."""
    out: set[str] = set()
    for node in body_nodes(callback.func):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _mentions(node, names):
            out.add(node.name)
    return out


def _mentions(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in nested_nodes(node))


def _holds(expr: ast.expr, names: set[str], closures: set[str], deferred: bool = False) -> bool:
    """Does evaluating ``expr`` produce something that keeps the consumer alive?"""
    if isinstance(expr, ast.Name):
        return expr.id in names or expr.id in closures
    if isinstance(expr, ast.Lambda):
        return _mentions(expr.body, names)
    if isinstance(expr, ast.Attribute):  # consumer.commit: a bound method
        return (
            isinstance(expr.value, ast.Name)
            and expr.value.id in names
            and expr.attr in _CONSUMER_METHODS
        )
    if isinstance(expr, ast.Tuple | ast.List | ast.Set):
        return any(_holds(e, names, closures, deferred) for e in expr.elts)
    if isinstance(expr, ast.Dict):
        return any(_holds(v, names, closures, deferred) for v in expr.values if v is not None)
    if isinstance(expr, ast.Starred):
        return _holds(expr.value, names, closures, deferred)
    if isinstance(expr, ast.Call):
        func = expr.func
        func_name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if func_name == "partial":
            return any(
                _holds(a, names, closures) for a in [*expr.args, *(k.value for k in expr.keywords)]
            )
        if deferred and isinstance(func, ast.Attribute):  # create_task(consumer.commit())
            return isinstance(func.value, ast.Name) and func.value.id in names
    return False


def _declared_global(callback: Callback) -> set[str]:
    return {
        name
        for node in body_nodes(callback.func)
        if isinstance(node, ast.Global | ast.Nonlocal)
        for name in node.names
    }


@CONSUMER_ESCAPES_CALLBACK.in_callbacks(ast.Assign, ast.AnnAssign, ast.AugAssign)
def stored(node: ast.AST, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    assert isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
    names = _param_names(callback)
    if not names or node.value is None:
        return
    closures = _closures(callback, names)
    if not _holds(node.value, names, closures):
        return
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    for target in targets:
        how = None
        if isinstance(target, ast.Attribute):
            how = f"stored in attribute .{target.attr}"
        elif isinstance(target, ast.Subscript):
            how = "stored in a container"
        elif isinstance(target, ast.Name) and target.id in _declared_global(callback):
            how = f"stored in global {target.id}"
        if how is not None:
            yield CONSUMER_ESCAPES_CALLBACK.hit(
                node, case=_case(callback), what=_what(callback), callback=callback.label,
                how=how,
            )  # fmt: skip


@CONSUMER_ESCAPES_CALLBACK.in_callbacks(ast.Call)
def handed_off(node: ast.AST, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    assert isinstance(node, ast.Call)
    names = _param_names(callback)
    if not names:
        return
    func = node.func
    func_name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if func_name in _CONTAINER_METHODS and isinstance(func, ast.Attribute):
        how = f"added to a container with .{func_name}()"
        deferred = False
    elif func_name in _DEFERRING_FUNCS:
        how = f"handed to {func_name}(), which runs after the callback returns"
        deferred = True
    else:
        return
    if isinstance(func, ast.Attribute) and dotted(func.value) in names:
        return  # a method of the consumer itself
    closures = _closures(callback, names)
    values = [*node.args, *(kw.value for kw in node.keywords)]
    if any(_holds(v, names, closures, deferred) for v in values):
        yield CONSUMER_ESCAPES_CALLBACK.hit(
            node, case=_case(callback), what=_what(callback), callback=callback.label, how=how
        )


def _case(callback: Callback) -> str:
    return "view" if callback.api == "guard" else "consumer"


def _what(callback: Callback) -> str:
    return "rebalance view" if callback.api == "guard" else "consumer passed to the callback"


@CONSUMER_ESCAPES_CALLBACK.on_effects
def stored_through_a_call(effect: Effect, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    """The callback hands its consumer to another object's method that keeps it.

    Stores in the callback's own body are the checks above (they also see closures,
    containers and deferred calls); this one reports only what a summary reached via calls.
    """
    if effect.kind == "store" and effect.via:
        yield CONSUMER_ESCAPES_CALLBACK.hit(
            effect.anchor, case=_case(callback), what=_what(callback),
            callback=effect.label(callback.label), how=effect.name,
        )  # fmt: skip
