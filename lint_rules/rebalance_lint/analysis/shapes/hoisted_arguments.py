"""Shape: ``subscribe()`` arguments evaluated before the listener that have side effects
(``consumer.subscribe(load_topics(), listener=Listener(load_config()))``).

Registering the listener first (:mod:`.listener_registration`) would create it before those
arguments are evaluated. They are evaluated first still: each argument before the listener
that is not a constant goes, in order, into a variable of its own on the line before
``set_rebalance_listener()`` (``topics = load_topics()``), and ``subscribe()`` takes the
variable. Arguments after the listener were evaluated after it already, and still are.
"""

from __future__ import annotations

import ast

from rebalance_lint.analysis.migration_expressions import ordered_args
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape

#: subscribe(topics=(), pattern=None, listener=None) in both listener clients
_POSITIONAL = ("topics", "pattern")


def hoisted_arguments(
    call: ast.Call, listener: ast.expr, facts: FileFacts
) -> tuple[tuple[str, str, str], ...]:
    """(index among the call's arguments in source order, variable name, "") for each
    argument before ``listener`` that goes into a variable (``split_subscribe``'s names)."""
    taken = set(facts.index.names)
    out: list[tuple[str, str, str]] = []
    for index, arg in enumerate(ordered_args(call)):
        if arg is listener:
            break
        if isinstance(arg, ast.Constant):
            continue
        keyword = next((kw.arg for kw in call.keywords if kw.value is arg), None)
        position = call.args.index(arg) if arg in call.args else len(_POSITIONAL)
        base = keyword or (_POSITIONAL[position] if position < len(_POSITIONAL) else "argument")
        candidates = (base, f"{base}_arg", *(f"{base}_{i}" for i in range(2, 99)))
        name = next(n for n in candidates if n not in taken)
        taken.add(name)
        out.append((str(index), name, ""))
    return tuple(out)


SHAPE = Shape(
    name="arguments evaluated before the listener",
    planner="listeners",
    recognises=(
        "subscribe(listener=...) whose listener and an earlier argument both have side effects"
    ),
    plan="split_subscribe with names: each earlier argument into a variable first",
    fixtures=(
        "tests/codemods/test_evaluation_order.py",
        "tests/codemods/fixtures/hoisted_arguments.py",
    ),
)
