"""Shape (auto-fix): the lost handler of a confluent registration.

- confluent ``subscribe(..., on_revoke=f)`` without ``on_lost=``: a function ``f``'s lost twin
  (``on_revoke`` -> ``on_lost``, a name the file does not use yet) is defined right after
  ``f``, in the same block, and every such ``subscribe()`` of this file that names ``f``
  directly gets ``on_lost=`` that name (``self._on_lost`` for a method registered as
  ``self._on_revoke``). A def rather than a lambda: ``rebalance-guard migrate`` gathers
  defined functions into a listener class, and AIOConsumer awaits its callbacks (the twin is
  ``async def`` there). Not for lambdas, ``functools.partial`` objects, callbacks passed
  through variables or ``**kwargs``, or registrations in another file.
"""

from __future__ import annotations

import ast

from rebalance_lint.analysis.clients import (
    takes_callbacks,
    wraps_only_keyword_callbacks,
)
from rebalance_lint.analysis.collect import FunctionNode
from rebalance_lint.analysis.edits import Edit, span
from rebalance_lint.analysis.fix_plan import FixContext, _names
from rebalance_lint.analysis.migration_expressions import has_star_args
from rebalance_lint.analysis.model import Callback, Registration
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.fix_lost_listener import _stub


def confluent_lost(
    planner: FixContext, callback: Callback, func: FunctionNode, kept: tuple[int, ...]
) -> tuple[Edit, ...] | str:
    if callback.bound or callback.partials.keys() - {0}:
        return "on_revoke= is a functools.partial; pass an on_lost= callback by hand"
    if func.decorator_list:
        return f"{callback.label} is decorated; pass an on_lost= callback by hand"
    if callback.is_method:
        parent = callback.scope.parent
        if parent is None or not parent.is_class_body:
            return (
                "the callback is not a method of a class of this file; pass subscribe() an "
                "on_lost= callback that does its work without the commit, by hand"
            )
    sites = list({id(reg): reg for reg in callback.sites}.values())
    to_fix: list[Registration] = []
    for reg in sites:
        if not takes_callbacks(reg.client):
            return (
                "the callback is also registered as a listener; give that listener an "
                "on_partitions_lost() that does not commit, and pass on_lost= here, by hand"
            )
        lost_expr, revoke_expr = reg.roles.get("on_lost"), reg.roles.get("on_revoke")
        if lost_expr is not None:
            if _names(lost_expr, func.name, callback.is_method):
                return f"{callback.label} is also passed as on_lost=; drop the commit by hand"
            continue
        if revoke_expr is None or not _names(revoke_expr, func.name, callback.is_method):
            if any(_names(expr, func.name, callback.is_method) for expr in reg.roles.values()):
                continue  # registered as on_assign here; this site's on_revoke is another
            return (
                f"a subscribe() does not give on_revoke= as {func.name} itself "
                "(a variable, a dict of callbacks); pass on_lost= by hand"
            )
        problem = _site_problem(planner, reg, revoke_expr)
        if problem is not None:
            return problem
        to_fix.append(reg)
    if not to_fix:
        return (
            "no subscribe() of this file registers it as on_revoke= without on_lost=; pass "
            "on_lost= where it is registered so, by hand"
        )
    aio = {reg.client == "confluent_aio" for reg in to_fix}
    if len(aio) > 1 or isinstance(func, ast.AsyncFunctionDef) != aio.pop():
        return (
            f"{callback.label} is not async def exactly where the consumer awaits it "
            "(AIOConsumer); pass on_lost= by hand"
        )
    name = planner.fresh_name(func.name)
    edits = [_stub(func, name, kept)]
    for reg in to_fix:
        revoke_expr = reg.roles["on_revoke"]
        if isinstance(revoke_expr, ast.Attribute):
            assert isinstance(revoke_expr.value, ast.Name)
            value = f"{revoke_expr.value.id}.{name}"
        else:
            value = name
        edits.append(Edit("set_keyword", span(reg.call), value="on_lost", extra=value))
    return tuple(edits)


def _site_problem(planner: FixContext, reg: Registration, revoke_expr: ast.expr) -> str | None:
    call = reg.call
    root = reg.scope
    while root.parent is not None:
        root = root.parent
    if root.node is not planner.analysis.tree:
        return "it is registered in another file; pass on_lost= there by hand"
    if id(call) not in planner.tree_nodes():
        return (
            "a subscribe() gets it through a dict of callbacks or run_in_executor(); pass "
            "on_lost= by hand"
        )
    if has_star_args(call):
        return "a subscribe() of it unpacks * or ** arguments; pass on_lost= by hand"
    given = [*call.args, *(kw.value for kw in call.keywords)]
    if not any(arg is revoke_expr for arg in given):
        return "a subscribe() gets on_revoke= indirectly; pass on_lost= by hand"
    if wraps_only_keyword_callbacks(reg.client) and len(call.args) > 1:
        return (
            "an AIOConsumer subscribe() passes callbacks positionally, which it does not "
            "await (KRB111); pass them by keyword first"
        )
    return None


SHAPE = Shape(
    name="confluent lost twin",
    planner="fixes",
    recognises=("subscribe(..., on_revoke=f) without on_lost= in this file"),
    plan=("add_stub_after (f's lost twin) + set_keyword (on_lost=)"),
    fixtures=(
        "tests/codemods/fixtures/fixes",
        "tests/codemods/test_fixes.py",
        "tests/codemods/test_fix_cli.py",
    ),
)
