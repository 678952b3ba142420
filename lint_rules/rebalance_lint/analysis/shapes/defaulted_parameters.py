"""Shape: callbacks with extra parameters after the client's own, each with a constant default
(``def on_assign(consumer, partitions, retries=3)``, ``def on_partitions_revoked(self,
revoked, flush=True)``, keyword-only ``*, verbose=False`` too): issue 25's "signatures with
extra defaulted parameters".

The client always calls a callback with its own arguments only (confluent ``(consumer,
partitions)``, kafka-python and aiokafka ``(partitions)``), so every extra parameter takes its
default. The listener method keeps them, after the view, with the same defaults (a method with
more defaulted parameters than its base's still overrides it, for mypy and pyright too) and
the runtime calls it with ``(partitions, view)``: the same values again. Provably the same
only when:

- every default is a constant (a confluent function gathered into the listener class has its
  defaults evaluated where the class is, maybe before statements that ran between the defs;
  a constant is the same value wherever it is evaluated), or, for a callback defined inside a
  function, a parameter of that function bound nowhere else in it (``def on_assign(consumer,
  partitions, _self=self)`` in a method, the closure idiom from before closures: the listener
  class is gathered inside the same function, where that name has one value throughout);
- nothing else calls the callback (a caller may pass the extra parameters): a function used
  elsewhere is refused before (:mod:`.confluent_functions`), an owner method called elsewhere
  keeps the refusal (its wrapper would drop them), and any direct call of a listener's
  callback refuses the class (:mod:`.direct_callback_calls`).
"""

from __future__ import annotations

import ast

from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape


def extra_defaulted(
    args: ast.arguments, taken: int, function: ast.AST | None = None, facts: FileFacts | None = None
) -> bool:
    """Whether ``args`` is ``taken`` parameters without defaults followed by at least one more,
    positional or keyword-only (after a bare ``*``), each with a constant default (or, given
    the callback ``function`` and the file's ``facts``, an unrebound parameter of the function
    it is defined in), and nothing else (no positional-only, ``*args`` or ``**kwargs``). A
    keyword-only parameter is never given by a positional call, the client's or the
    runtime's, so it keeps its default too."""
    extra = len(args.args) - taken

    def fixed(default: ast.expr | None) -> bool:
        return default is not None and (
            _constant(default)
            or (
                function is not None
                and facts is not None
                and _outer_parameter(default, function, facts)
            )
        )

    return (
        extra >= 0
        and extra + len(args.kwonlyargs) > 0
        and not (args.posonlyargs or args.vararg or args.kwarg)
        and len(args.defaults) == extra
        and all(fixed(default) for default in args.defaults)
        and all(fixed(default) for default in args.kw_defaults)
    )


def _outer_parameter(node: ast.expr, function: ast.AST, facts: FileFacts) -> bool:
    """``node`` names a parameter of the function ``function`` is defined in, bound nowhere
    else there (its one binding): the same value wherever in that function it is read."""
    if not isinstance(node, ast.Name):
        return False
    outer = next((a for a in facts.bindings.ancestors(function) if isinstance(a, _FUNCTIONS)), None)
    if outer is None:
        return False
    bound = facts.bindings.binding(node)
    parameters = (*outer.args.posonlyargs, *outer.args.args, *outer.args.kwonlyargs)
    return isinstance(bound, ast.arg) and any(bound is a for a in parameters)


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _constant(node: ast.expr) -> bool:
    """A literal: a constant, a signed number, or a tuple of literals."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return isinstance(node.operand, ast.Constant) and isinstance(
            node.operand.value, int | float | complex
        )
    if isinstance(node, ast.Tuple):
        return all(_constant(element) for element in node.elts)
    return False


SHAPE = Shape(
    name="extra defaulted parameters",
    planner="shared",
    recognises=(
        "a callback's parameters beyond the client's own, each with a constant default, and "
        "nothing else calling it"
    ),
    plan=(
        "the listener method keeps them after the view (gather, listener_method: the "
        "consumer and partitions swap, the rest stays; append_param: the view goes before them)"
    ),
    fixtures=(
        "tests/codemods/test_defaulted_parameters.py",
        "tests/codemods/fixtures/defaulted_parameters.py",
    ),
)
