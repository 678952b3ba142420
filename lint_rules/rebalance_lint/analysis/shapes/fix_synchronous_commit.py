"""Shape (auto-fix): an asynchronous commit in a revocation.

**KRB103** (an asynchronous commit in a revocation) becomes the same commit made synchronously,
when all of these hold:

- the commit is a statement of the callback's own body (``consumer.commit_async()`` or
  ``await consumer.commit(...)`` on a line of its own): its return value is not used (a
  ``Future`` or ``None`` from the asynchronous form, a list from confluent's synchronous one),
  and it is not in a helper that other code may call too;
- the callback does not also run when partitions are lost, unless the KRB104 fix below gives
  it a lost handler in the same plan: a synchronous commit for lost partitions raises where
  the asynchronous one failed quietly. A bare commit on the rebalance view needs no lost
  handler: on loss the view commits nothing (:func:`harmless_on_loss`);
- kafka-python ``commit_async(offsets)`` -> ``commit(offsets)``: only on the rebalance_guard
  view (the callback's own consumer argument). On the consumer itself a blocking ``commit()``
  raises on kafka-python 3's IO thread (KRB105); a ``callback=`` has no place in
  ``commit()``;
- confluent ``commit(..., asynchronous=True)`` -> ``asynchronous=False``, and a bare
  ``commit(...)`` on the raw confluent consumer gets ``asynchronous=False``: on the
  rebalance_guard views always (their synchronous ``commit()`` returns ``[]`` when there is
  nothing to commit), on the raw consumer only with explicit ``offsets=``/``message=``:
  librdkafka's synchronous commit of the current positions raises ``KafkaException(_NO_OFFSET)``
  when nothing was consumed since the last commit, common in a revocation.

Either way a failing commit now raises from the callback (which is what a synchronous commit
means) instead of being logged.
"""

from __future__ import annotations

import ast

from rebalance_lint.analysis.clients import (
    is_confluent,
)
from rebalance_lint.analysis.collect import FunctionNode
from rebalance_lint.analysis.edits import Edit, span
from rebalance_lint.analysis.fix_plan import Fix, FixContext, Key, _reached
from rebalance_lint.analysis.migration_expressions import has_star_args
from rebalance_lint.analysis.model import Callback, Effect
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.fix_harmless_on_loss import harmless_on_loss
from rebalance_lint.analysis.walk import body_nodes


def asynchronous_commit(effect: Effect, callback: Callback) -> str | None:
    """How this commit is asynchronous (KRB103's ``what``), or None if it is synchronous or
    that cannot be known."""
    if effect.name == "commit_async":
        return "commit_async()"
    if effect.name != "commit" or not isinstance(effect.node, ast.Call):
        return None
    flag = next((kw.value for kw in effect.node.keywords if kw.arg == "asynchronous"), None)
    if isinstance(flag, ast.Constant):
        return "commit(asynchronous=True)" if flag.value is True else None
    if flag is not None:
        return None
    return (
        "commit() is asynchronous by default in confluent-kafka"
        if _raw_confluent(effect, callback)
        else None
    )


def _raw_confluent(effect: Effect, callback: Callback) -> bool:
    """A commit on confluent's own consumer (not on a rebalance_guard view)."""
    return is_confluent(callback.client) and (
        callback.api == "confluent" or effect.origin == "injected"
    )


def synchronous(
    planner: FixContext, callback: Callback, effect: Effect, lost: set[Key]
) -> Fix | str:
    """The fix that makes ``effect``'s commit synchronous, or why there is none."""
    call = effect.node
    if effect.via:
        return _reached(effect)
    if callback.helper:
        return (
            f"the commit is in {callback.label}, which other code may call too; make it "
            "synchronous there by hand if that is right for every caller"
        )
    assert isinstance(call, ast.Call)
    if not _is_statement(call, callback.func):
        return (
            "its result is used (the asynchronous form returns something else than the "
            "synchronous one); make it synchronous by hand"
        )
    if has_star_args(call):
        return "its arguments are unpacked (* or **); make it synchronous by hand"
    requires: frozenset[Key] = frozenset()
    if "lost" in callback.kinds and not harmless_on_loss(effect, callback, planner.analysis):
        if not lost:
            return (
                f"{callback.label} also runs when partitions are lost{callback.lost_via}, "
                "where a synchronous commit raises instead of failing quietly; keep the "
                "commit off the lost path first (KRB104)"
            )
        requires = frozenset(planner.unsuppressed(lost))
        if not requires:
            return (
                f"{callback.label} also runs when partitions are lost, and the KRB104 fix "
                "that would give it a lost handler is suppressed (noqa); a synchronous "
                "commit there raises: drop that noqa and run fix again, or keep the commit off "
                "the lost path by hand"
            )
    if effect.name == "commit_async":
        edit = commit_async(planner, callback, effect, call)
    else:
        edit = asynchronous_false(planner, callback, effect, call)
    return edit if isinstance(edit, str) else Fix((edit,), requires)


def commit_async(
    planner: FixContext, callback: Callback, effect: Effect, call: ast.Call
) -> Edit | str:
    if callback.client != "kafka_python":
        return "not a kafka-python consumer's commit_async(); commit synchronously by hand"
    if callback.api != "guard" or effect.origin != "param":
        return (
            f"commit_async() is called on the consumer itself ({effect.receiver}), not on "
            "the rebalance view: a blocking commit() there raises on kafka-python 3's IO "
            "thread (KRB105); rebalance-guard migrate moves the listener to the view and "
            "then makes this commit synchronous (where it cannot, its manual site says why)"
        )
    keywords = {kw.arg for kw in call.keywords}
    if len(call.args) > 1 or "callback" in keywords:
        return (
            "commit_async() is given a callback, which commit() does not take; commit "
            "synchronously and do the callback's work after it by hand"
        )
    if keywords - {"offsets"}:
        return (
            f"commit_async() has arguments commit() does not take "
            f"({', '.join(sorted(k or '**' for k in keywords - {'offsets'}))}); call "
            "commit() with offsets= alone, by hand"
        )
    assert isinstance(call.func, ast.Attribute)
    return Edit("rename_method", span(call), value="commit")


def asynchronous_false(
    planner: FixContext, callback: Callback, effect: Effect, call: ast.Call
) -> Edit | str:
    if not is_confluent(callback.client):
        return "not a confluent-kafka commit; commit synchronously by hand"
    explicit = bool(call.args) or any(kw.arg in ("offsets", "message") for kw in call.keywords)
    if _raw_confluent(effect, callback) and not explicit:
        return (
            "on confluent's own consumer a synchronous commit() of the current positions "
            "raises KafkaException(_NO_OFFSET) when nothing was consumed since the last "
            "commit; rebalance-guard migrate moves the callback to the rebalance view, whose "
            "commit() is synchronous and returns [] then (where it cannot, its manual site "
            "says why; or pass offsets= by hand)"
        )
    return Edit("set_keyword", span(call), value="asynchronous", extra="False")


def _is_statement(call: ast.Call, func: FunctionNode | ast.Lambda) -> bool:
    """``call`` (or ``await call``) is a statement of ``func``'s body: its value is unused."""
    for node in body_nodes(func):
        if isinstance(node, ast.Expr):
            value = node.value.value if isinstance(node.value, ast.Await) else node.value
            if value is call:
                return True
    return False


SHAPE = Shape(
    name="synchronous commit on revoke (KRB103)",
    planner="fixes",
    recognises=(
        "an asynchronous commit effect (commit_async, commit(asynchronous=True), "
        "confluent's bare commit) of a callback that runs on revocation"
    ),
    plan=("rename_method (commit_async -> commit) / set_keyword (asynchronous=False)"),
    fixtures=(
        "tests/codemods/fixtures/fixes",
        "tests/codemods/test_fixes.py",
        "tests/codemods/test_fix_cli.py",
    ),
)
