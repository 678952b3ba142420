"""Shape (auto-fix): the lost handler of a listener class.

- a rebalance_guard or kafka-python 3 listener class with no ``on_partitions_lost``: an
  ``on_partitions_lost`` with the revocation's own signature (``async`` too) is added right
  after ``on_partitions_revoked``, in the class that defines it. Not when a class of the file
  derives from that class and overrides ``on_partitions_revoked`` without an
  ``on_partitions_lost`` (the new method would change what that class does on loss), or when
  the revocation is decorated or also called on the lost path some other way;
"""

from __future__ import annotations

import ast

from rebalance_lint.analysis.collect import FunctionNode
from rebalance_lint.analysis.edits import Edit, span
from rebalance_lint.analysis.fix_plan import _REVOKE_WORD, FixContext, _names, _own_methods
from rebalance_lint.analysis.model import Callback
from rebalance_lint.analysis.shape import Shape


def listener_lost(
    planner: FixContext, callback: Callback, func: FunctionNode, kept: tuple[int, ...]
) -> tuple[Edit, ...] | str:
    owner = callback.owner
    assert owner is not None
    parent = callback.scope.parent
    cls = parent.node if parent is not None and parent.is_class_body else None
    if (
        not isinstance(cls, ast.ClassDef)
        or func.name != "on_partitions_revoked"
        or owner.methods.get("on_partitions_revoked") is not func
        or "on_partitions_lost" in owner.methods
    ):
        return "the listener's methods are not all in this file; add on_partitions_lost by hand"
    if func.decorator_list:
        return "on_partitions_revoked() is decorated; add on_partitions_lost by hand"
    for sub in planner.subclasses(cls):
        methods = next(
            (lc.methods for lc in planner.analysis.listeners if lc.node is sub),
            _own_methods(sub),
        )
        own = methods.get("on_partitions_revoked")
        if own is not None and own is not func and "on_partitions_lost" not in methods:
            return (
                f"{sub.name} derives from {cls.name} and has its own on_partitions_revoked(), "
                f"which runs on loss today; an on_partitions_lost() added to {cls.name} "
                "would change that: add the lost handlers by hand"
            )
    for reg in planner.analysis.registrations:
        roles = [expr for role, expr in reg.roles.items() if role != "listener"]
        if any(_names(expr, func.name) for expr in roles):
            return (
                "on_partitions_revoked() is also registered as a callback; add an "
                "on_partitions_lost() that does not commit, and pass on_lost= to that "
                "subscribe(), by hand"
            )
    return (_stub(func, "on_partitions_lost", kept),)


#: The comment of the lost handler the KRB104 fix adds.
LOST_COMMENT = "# lost partitions belong to another member already: nothing to commit"


def _stub(func: FunctionNode, name: str, kept: tuple[int, ...]) -> Edit:
    """The lost handler: ``func``'s signature under ``name``, doing only the statements
    ``kept`` of its body (logging), else nothing; with nothing kept, its parameters are named
    for loss (``revoked`` -> ``lost``)."""
    params = [a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)]
    renames = tuple(
        (old, new, "")
        for old in params
        if (new := _REVOKE_WORD.sub("lost", old, count=1)) != old and new not in params
    )
    return Edit(
        "add_stub_after",
        span(func),
        value=name,
        extra=LOST_COMMENT,
        names=() if kept else renames,
        keep=kept,
    )


SHAPE = Shape(
    name="listener lost handler",
    planner="fixes",
    recognises=(
        "on_partitions_revoked of a rebalance_guard or kafka-python 3 listener class "
        "without on_partitions_lost"
    ),
    plan=("add_stub_after (on_partitions_lost)"),
    fixtures=(
        "tests/codemods/fixtures/fixes",
        "tests/codemods/test_fixes.py",
        "tests/codemods/test_fix_cli.py",
    ),
)
