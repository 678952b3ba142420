"""One confluent callback as the confluent planner's shapes see it, and what they share.

:class:`_Callback` is what a shape's ``resolve`` makes of one registered value (a def, a
lambda, a ``functools.partial`` of a def, an owner's method); the helpers name the guard
imports, the listener class and its ``self``, and find a callback's parameters.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.edits import MigrationPlan, span
from rebalance_lint.analysis.migration_facts import FileFacts, containing_list, guard_name, names_in

_ASSIGNS = {"assign", "incremental_assign"}


_UNASSIGNS = {"unassign", "incremental_unassign"}


Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class _Callback:
    keyword: str  # on_assign / on_revoke / on_lost
    function: Function | ast.Lambda
    method: bool = False  # a method of the owner class (``self`` first)
    static: bool = False  # a ``@staticmethod`` of the owner class (no ``self``)
    partial: ast.Call | None = None  # ``functools.partial(function, ...)`` was registered
    bound: tuple[str, ...] = ()  # the parameters that partial binds, in the def's order
    variable: ast.Name | None = None  # the name a lambda was assigned to first

    @property
    def label(self) -> str:
        if isinstance(self.function, ast.Lambda):
            return f"the {self.keyword}= lambda"
        return self.function.name

    def same_callable(self, other: _Callback) -> bool:
        """Whether both register the same function (through equal partials, if any)."""
        if self.function is not other.function:
            return False
        if self.partial is None or other.partial is None:
            return self.partial is other.partial
        return ast.dump(self.partial) == ast.dump(other.partial)


def _drop_annotation_import(param: ast.arg, plan: MigrationPlan) -> None:
    if param.annotation is not None:
        plan.unused_imports.append(span(param.annotation))


def _param(function: Function, name: str) -> ast.arg:
    return next(a for a in [*function.args.args, *function.args.kwonlyargs] if a.arg == name)


def _consumer_param(callback: _Callback) -> ast.arg:
    """The callback's consumer parameter (the method's ``self`` and the bound ones skipped)."""
    offset = 1 if callback.method else 0
    if callback.partial is not None:
        offset += len(callback.partial.args) - 1
    return callback.function.args.args[offset]


def _guard_names(
    facts: FileFacts, taken: set[str], client: ClientFacts, plan: MigrationPlan
) -> tuple[str, str, str]:
    """Local names for the client's ``RebalanceListener``, ``RebalanceConsumer`` and
    ``subscribe``, their imports scheduled in ``plan``."""
    module = client.guard_module
    return (
        guard_name(facts, taken, module, "RebalanceListener", plan),
        guard_name(facts, taken, module, "RebalanceConsumer", plan),
        guard_name(facts, taken, module, "subscribe", plan),
    )


def _self_name(function: Function | ast.Lambda) -> str:
    """What the method's ``self`` is called: a name nothing in the function uses already."""
    taken = names_in(function)
    return next(n for n in ("self", "listener", "_self") if n not in taken)


def _argument_of(ref: ast.AST, call: ast.Call, facts: FileFacts) -> bool:
    parent = facts.parent(ref)
    if isinstance(parent, ast.keyword):
        return facts.parent(parent) is call
    return parent is call and call.func is not ref


def _block_of(function: ast.AST, facts: FileFacts) -> tuple[int, int]:
    """Which statement list holds ``function`` (a def or another statement; ``if`` and
    ``else`` bodies differ)."""
    parent = facts.parent(function)
    body = containing_list(parent, function) if parent is not None else None
    return id(parent), id(body)


def _statement_of(node: ast.AST, facts: FileFacts) -> ast.stmt | None:
    for ancestor in facts.bindings.ancestors(node):
        if isinstance(ancestor, ast.stmt):
            return ancestor
    return None


def _class_names() -> list[str]:
    return ["RebalanceCallbacks", *(f"RebalanceCallbacks{i}" for i in range(2, 100))]


#: The def a next step names where None was meant as "no callback" (``.format(keyword=...)``).
DEFAULT_DEF = (
    "def {keyword}(consumer, partitions) doing what confluent's default does, e.g. "
    "consumer.assign(partitions) for on_assign"
)


def none_callback_refusal(keyword: str, what: str, instead: str) -> str:
    """Why a registration where confluent's ``keyword=`` may get None is not migrated:
    confluent does not take None as "no callback" (``Consumer.subscribe()`` raises TypeError,
    ``AIOConsumer`` calls None at the rebalance), and a listener skipping the callback would
    turn that error into a working subscription. ``what``: where the None comes from;
    ``instead``: the next step."""
    return (
        f"{what}, which confluent does not take as no callback (Consumer.subscribe() raises "
        f"TypeError: {keyword} expects a callable; AIOConsumer calls None at the rebalance); "
        f"{instead}, first"
    )
