"""Shape: a listener handed to a function of the file that registers it (held_out_9 001:
``rebalance_listener = RebalanceHandler(stage)``, then ``connect_kafka_consumer(servers, topic,
group, rebalance_listener)``, whose ``consumer.subscribe([topic], listener=rebalance_listener)``
is the parameter's one use).

Every call of that function passes a creation of the one class (directly or through a variable
bound once to it), so those creations are what the registration holds: the class migrates
with them, the registration splits as any other. The arguments count as registrations of the
instances (their variables may be used for nothing else). The consumer the listener is
registered on is the function's own, which the caller cannot name: a consumer injected into
the class at its creation is never taken for it (the class keeps such a consumer, or the
injection is refused, as for a consumer of unknown origin).

Sound where the function is a plain ``def`` at the top level of the module, bound once, every
use of its name a call giving the parameter one argument (positionally or by keyword, no
``*``/``**``), and the parameter (no default, not keyword-only) read only at that
``listener=``; anything else is not this shape (the registration refuses as before)."""

from __future__ import annotations

import ast
from collections.abc import Callable

from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape

#: where a parameter's argument is at a call: its position and its name
Slot = tuple[int, str]


def parameter_creations(
    value: ast.expr,
    facts: FileFacts,
    creation_of: Callable[[ast.expr], ast.Call | None],
) -> tuple[list[ast.Call], list[ast.expr]] | None:
    """The creations a ``listener=`` parameter receives at every call of its function, and
    the arguments passing them; None when ``value`` is not such a parameter or some call
    passes something else (``creation_of``: the planner's creation behind an argument)."""
    if not isinstance(value, ast.Name):
        return None
    param = facts.bindings.binding(value)
    function = facts.bindings.scope_at[value].node  # read in a nested scope: not its own
    if not (
        isinstance(param, ast.arg)
        and isinstance(function, ast.FunctionDef)
        and param in function.args.args
        and isinstance(facts.parent(function), ast.Module)
        and facts.bindings.references(param, param.arg) == [value]
    ):
        return None
    slot = _slot(function, param)
    calls = facts.bindings.references(function, function.name)
    if slot is None or not calls:
        return None
    creations: list[ast.Call] = []
    arguments: list[ast.expr] = []
    for ref in calls:
        call = facts.parent(ref)
        argument = _argument(call, ref, slot)
        creation = creation_of(argument) if argument is not None else None
        if creation is None:
            return None
        assert argument is not None
        creations.append(creation)
        arguments.append(argument)
    return creations, arguments


def _slot(function: ast.FunctionDef, param: ast.arg) -> Slot | None:
    """The parameter's position and name, when a call gives it one plain argument."""
    args = function.args
    if args.vararg or args.kwarg or param not in args.args:
        return None
    index = args.args.index(param)
    if index >= len(args.args) - len(args.defaults):
        return None  # a default: a call may leave it out
    return (index, param.arg)


def _argument(call: ast.AST | None, ref: ast.expr, slot: Slot) -> ast.expr | None:
    """What ``call`` (of the function named by ``ref``) passes for the parameter."""
    if not isinstance(call, ast.Call) or call.func is not ref:
        return None
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    index, name = slot
    given = [k.value for k in call.keywords if k.arg == name]
    if index < len(call.args):
        given.append(call.args[index])
    return given[0] if len(given) == 1 else None


SHAPE = Shape(
    name="listener handed to a registering function",
    planner="listeners",
    recognises=(
        "listener=<parameter> in a top-level def whose every call passes a creation of the "
        "one class (or a variable bound once to one)"
    ),
    plan="the class's plan with those creations; the registration split as any other",
    fixtures=(
        "tests/codemods/test_parameter_listeners.py",
        "tests/codemods/fixtures/parameter_listeners.py",
    ),
)
