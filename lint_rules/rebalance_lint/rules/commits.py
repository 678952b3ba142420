"""KRB103 and KRB104: commits that land too late (async on revoke) or cannot land (on lost)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rebalance_lint.analysis.clients import COMMITS
from rebalance_lint.analysis.model import Analysis, Callback, Origin
from rebalance_lint.rules.registry import Hit, consumer_method, on


def _asynchronous(node: ast.Call, method: str, callback: Callback, origin: Origin) -> str | None:
    """How this commit is asynchronous, or None if it is synchronous (or unknowable)."""
    if method == "commit_async":
        return "commit_async()"
    if method != "commit":
        return None
    flag = next((kw.value for kw in node.keywords if kw.arg == "asynchronous"), None)
    if isinstance(flag, ast.Constant):
        return "commit(asynchronous=True)" if flag.value is True else None
    if flag is not None:
        return None
    raw_confluent = callback.client == "confluent" and (
        callback.api == "confluent" or origin == "injected"
    )
    return "commit() is asynchronous by default in confluent-kafka" if raw_confluent else None


@on(ast.Call)
def async_commit_on_revoke(node: ast.AST, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    if "revoked" not in callback.kinds:
        return
    found = consumer_method(node, callback)
    if found is None:
        return
    assert isinstance(node, ast.Call)
    what = _asynchronous(node, found[0], callback, found[1])
    if what is not None:
        fix = "commit(asynchronous=False)" if callback.client == "confluent" else "commit()"
        yield Hit(node, "KRB103", {"what": what, "callback": callback.label, "fix": fix})


@on(ast.Call)
def commit_on_lost(node: ast.AST, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    if "lost" not in callback.kinds:
        return
    found = consumer_method(node, callback)
    if found is None or found[0] not in COMMITS:
        return
    via = callback.lost_via
    if "on_partitions_lost override" in via:
        fix = "override on_partitions_lost without the commit"
    elif "no on_lost=" in via:
        fix = "pass an on_lost= callback that does not commit"
    elif via:
        fix = "keep the commit off the lost path"
    else:
        fix = "drop the commit (commit on revoke, not on loss)"
    fields = {"method": f"{found[0]}()", "callback": callback.label, "via": via, "fix": fix}
    yield Hit(node, "KRB104", fields)
