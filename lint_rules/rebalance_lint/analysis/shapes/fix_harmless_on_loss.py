"""Shape (auto-fix): a bare commit on the rebalance view, which needs no fix on loss: during
``on_partitions_lost`` the view commits nothing (KIP-1306, DESIGN runtime rule 7). KRB104 does
not report it, and KRB103's fix of it needs no lost handler."""

from __future__ import annotations

import ast

from rebalance_lint.analysis.collect import positional_params
from rebalance_lint.analysis.model import Analysis, Callback, Effect
from rebalance_lint.analysis.shape import Shape


def harmless_on_loss(effect: Effect, callback: Callback, analysis: Analysis) -> bool:
    """A bare commit on the rebalance view: during ``on_partitions_lost`` the view commits
    nothing, because the lost partitions are already gone (KIP-1306, DESIGN runtime rule 7).
    KRB104 does not report it, and KRB103's fix of it needs no lost handler.

    Bare: no offsets and no message (``commit()``, ``commit_async()``,
    ``commit(asynchronous=...)``); on the view: the consumer argument of a rebalance_guard
    callback, also where it is passed down to a helper or another object's method, not a
    consumer of the client's own (an injected one, a legacy or raw confluent callback's),
    whose commit does fail.
    """
    call = effect.node
    return (
        effect.origin == "param"
        and effect.name in ("commit", "commit_async")
        and isinstance(call, ast.Call)
        and not call.args
        and not any(kw.arg in (None, "offsets", "message") for kw in call.keywords)
        and _given_the_view(callback, analysis, frozenset())
    )


def _given_the_view(callback: Callback, analysis: Analysis, seen: frozenset[int]) -> bool:
    """What ``callback`` knows as the consumer argument (``origin == "param"``) is the
    rebalance view wherever it runs on loss: a rebalance_guard callback's own argument; in a
    helper (whose such names are the parameters its callers pass their consumer argument in),
    only when every call that runs it on the lost path passes each of them a caller's own
    view. A helper shared with a raw confluent callback, or also given an injected consumer
    (``self._commit(self.consumer)`` in ``on_partitions_lost``), commits on a real consumer."""
    if callback.api != "guard":
        return False
    if not callback.helper:
        return True
    if id(callback) in seen:
        return True  # a call cycle among helpers: its entries decide
    seen = seen | {id(callback)}
    params = [a.arg for a in positional_params(callback.func)[1 if callback.is_method else 0 :]]
    calls = [
        (caller, hop.call)
        for caller in analysis.callbacks
        if "lost" in caller.kinds
        for hop, func in caller.helper_calls
        if func is callback.func
    ]
    if not calls:
        return False
    for caller, call in calls:
        for name in callback.passed_consumer:
            arg = _argument(call, params, name)
            if not isinstance(arg, ast.Name) or caller.receivers.get(arg.id) != "param":
                return False
        if not _given_the_view(caller, analysis, seen):
            return False
    return True


def _argument(call: ast.Call, params: list[str], name: str) -> ast.expr | None:
    """The argument ``call`` binds to the parameter ``name`` (``params``: the positional
    ones, after ``self``), if it gives one explicitly."""
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    index = params.index(name) if name in params else len(call.args)
    given = call.args[: index + 1]
    if index < len(call.args) and not any(isinstance(arg, ast.Starred) for arg in given):
        return call.args[index]
    return None


SHAPE = Shape(
    name="bare view commit on loss",
    planner="fixes",
    recognises=(
        "a commit()/commit_async() without offsets or message on the consumer argument of "
        "a rebalance_guard callback, also passed down to helpers on the lost path"
    ),
    plan=("none: no fix needed"),
    fixtures=(
        "tests/codemods/fixtures/fixes",
        "tests/codemods/test_fixes.py",
        "tests/codemods/test_fix_cli.py",
    ),
)
