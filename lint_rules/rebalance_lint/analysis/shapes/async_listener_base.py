"""Shape: kafka-python 3's ``AsyncConsumerRebalanceListener`` subclasses (async callbacks
awaited on the client's IO loop) become ``rebalance_guard.kafka_python.AsyncRebalanceListener``
subclasses, their callbacks taking the async view (``AsyncRebalanceConsumer``).

The class is planned as a legacy listener (registration, injected consumer, view parameter),
then adjusted: the async base and Protocol instead of the sync ones, and each call of a
method that is a coroutine on the async view (``commit()``, ``committed()``, ``position()``,
offset and topic queries, which block kafka-python 3's IO loop and raise there) awaited.
Refused where that is not the same program: a ``def`` callback (the async view's methods
would need awaits it cannot have), such a call inside a nested function, lambda or generator
expression, or the consumer handed to a helper (its calls would need awaits too).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import replace

from rebalance_guard._client_facts import (
    CALLBACK_METHODS,
    KAFKA_PYTHON_ASYNC_VIEW_COROUTINES,
    ClientFacts,
)

from rebalance_lint.analysis.edits import Edit, MigrationPlan, Span, span
from rebalance_lint.analysis.listener_state import RemoteUses, _State
from rebalance_lint.analysis.migration_facts import FileFacts, guard_name, methods_of
from rebalance_lint.analysis.model import IndirectInjection
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.displayed_consumer import only_displayed

#: ``migration_listeners._plan_class``: the legacy listener's plan, into the given plan.
PlanClass = Callable[
    [ast.ClassDef, ClientFacts, _State, MigrationPlan, RemoteUses | None, IndirectInjection | None],
    str | None,
]

_NEXT = "then run migrate again"


def plan_async_listener(
    plan_class: PlanClass,
    cls: ast.ClassDef,
    client: ClientFacts,
    state: _State,
    plan: MigrationPlan,
    remote: RemoteUses | None,
    closure: IndirectInjection | None,
) -> str | None:
    """Stage ``cls``'s migration to ``AsyncRebalanceListener`` in ``plan``; why not, if not."""
    callbacks = [fn for name, fn in methods_of(cls).items() if name in CALLBACK_METHODS]
    for fn in callbacks:
        if not isinstance(fn, ast.AsyncFunctionDef):
            return (
                f"derives from kafka-python's AsyncConsumerRebalanceListener but {fn.name} is a "
                f"plain def (kafka-python calls it on its IO loop, where a blocking consumer "
                f"call raises); make it async def, or derive from ConsumerRebalanceListener, "
                f"{_NEXT}"
            )
    staged = MigrationPlan()
    reason = plan_class(cls, replace(client, async_callbacks=True), state, staged, remote, closure)
    if reason is not None:
        return reason
    reason = _await_view_coroutines(cls, callbacks, staged, state.facts)
    if reason is not None:
        return reason
    _use_async_names(client, staged, state.facts)
    plan.merge(staged)
    return None


def _await_view_coroutines(
    cls: ast.ClassDef, callbacks: Sequence[ast.AST], staged: MigrationPlan, facts: FileFacts
) -> str | None:
    """Stage ``await`` on each view call that is a coroutine on the async view; refuse a view
    handed on, or such a call where no ``await`` can go."""
    nodes: dict[Span, ast.expr] = {}
    for fn in callbacks:
        for node in ast.walk(fn):
            if isinstance(node, ast.expr):
                nodes.setdefault(span(node), node)
    for edit in list(staged.edits):
        use = nodes.get(edit.target) if edit.action == "replace_with_name" else None
        if use is None:
            continue
        method = facts.parent(use)
        call = facts.parent(method) if method is not None else None
        if not (isinstance(method, ast.Attribute) and isinstance(call, ast.Call)):
            if only_displayed(use, facts):
                continue
            return (
                f"{cls.name} hands the consumer on (line {use.lineno}); on the async view its "
                f"blocking methods are coroutines the receiver would have to await: pass it "
                f"only what it needs, {_NEXT}"
            )
        if method.attr not in KAFKA_PYTHON_ASYNC_VIEW_COROUTINES:
            continue  # the same call on the async view (seek, pause, commit_async's Future...)
        holder = facts.parent(call)
        if isinstance(holder, ast.Await):
            continue  # awaited already (a TypeError on kafka-python; right on the view)
        reason = _no_await_here(call, callbacks, facts)
        if reason is not None:
            return f"{cls.name} calls consumer.{method.attr}() {reason}, {_NEXT}"
        primary = isinstance(holder, ast.Attribute | ast.Subscript) or (
            isinstance(holder, ast.Call) and holder.func is call
        )
        staged.edit(Edit("await_call", span(call), index=1 if primary else -1))
    return None


def _no_await_here(call: ast.Call, callbacks: Sequence[ast.AST], facts: FileFacts) -> str | None:
    """Why ``await`` cannot go before ``call`` (None: it is directly in an async callback)."""
    node: ast.AST | None = facts.parent(call)
    while node is not None and node not in callbacks:
        if isinstance(node, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef):
            return (
                f"inside a nested function (line {call.lineno}): it blocks kafka-python 3's IO "
                f"loop, and on the async view it must be awaited in the callback itself; "
                f"move it there"
            )
        if isinstance(node, ast.GeneratorExp):
            return (
                f"inside a generator expression (line {call.lineno}), where an await would "
                f"make it an async generator; use a list comprehension or a loop"
            )
        node = facts.parent(node)
    return None


def _use_async_names(client: ClientFacts, staged: MigrationPlan, facts: FileFacts) -> None:
    """The async base and Protocol instead of ``RebalanceListener``/``RebalanceConsumer``."""
    module = client.guard_module
    taken = facts.index.names
    renamed: dict[str, str] = {}
    for old in ("RebalanceListener", "RebalanceConsumer"):
        for entry in [i for i in staged.imports if i[0] == module and i[1] == old]:
            staged.imports.discard(entry)
            renamed[entry[2] or old] = guard_name(facts, taken, module, f"Async{old}", staged)
    for i, edit in enumerate(staged.edits):
        if edit.action == "rename_base" and edit.value in renamed:
            staged.edits[i] = replace(edit, value=renamed[edit.value])
        elif edit.action == "append_param" and edit.annotation in renamed:
            staged.edits[i] = replace(edit, annotation=renamed[edit.annotation])


SHAPE = Shape(
    name="kafka-python 3 async listeners",
    planner="listeners",
    recognises=(
        "a listener class whose named base is kafka-python's "
        "AsyncConsumerRebalanceListener (ListenerClass.named_base == 'async')"
    ),
    plan=(
        "the legacy listener's plan (rename_base to AsyncRebalanceListener, append_param "
        "AsyncRebalanceConsumer, replace_with_name...) + await_call"
    ),
    fixtures=(
        "tests/codemods/fixtures/kafka_python_async_listener.py",
        "tests/codemods/test_kafka_python_async_listener.py",
        "tests/codemods/test_refusals.py",
        "tests/codemods/fixtures/repos/async_listener_elsewhere",
    ),
)
