"""Shape (auto-fix): a commit that also runs when partitions are lost (KRB104) gets an
explicit lost handler.

**KRB104** (a commit that also runs when partitions are lost; not a bare commit on the
rebalance view, which commits nothing for lost partitions: :func:`harmless_on_loss` decides
that, for the rule and for both fixes) gets an explicit lost handler
that does what the lost path did minus the commit, which can be said without guessing only
when the revocation does nothing but commit and log: its body is commit statements, ``pass``,
docstrings, assignments of side-effect-free values to local names, ``if`` statements over
side-effect-free tests holding such statements, and logging calls (``log.info(...)``,
``print(...)``) on lines of their own. The lost handler keeps those logging calls, in order,
under a comment (a log line the lost path wrote before still appears), or is ``pass`` with the
comment. A revocation that also cleans up (clears per-partition state, closes files,
unassigns) needs that clean-up on loss too, without the commit; where the commit sits between
clean-up steps, or the clean-up depends on it, only a person can say what the lost handler
should do: it is reported, not fixed. Further conditions:
"""

from __future__ import annotations

import ast

from rebalance_lint.analysis.edits import Edit
from rebalance_lint.analysis.fix_plan import FixContext
from rebalance_lint.analysis.model import Callback
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.fix_lost_body import called_on_loss, lost_body
from rebalance_lint.analysis.shapes.fix_lost_confluent import confluent_lost
from rebalance_lint.analysis.shapes.fix_lost_listener import listener_lost


def lost_handler(planner: FixContext, callback: Callback) -> tuple[Edit, ...] | str:
    """The edits that give ``callback`` a lost handler that does not commit, or why not."""
    known = planner.lost.get(id(callback))
    if known is None:
        known = _lost_handler(planner, callback)
        planner.lost[id(callback)] = known
    return known


def _lost_handler(planner: FixContext, callback: Callback) -> tuple[Edit, ...] | str:
    func = callback.func
    via = callback.lost_via
    if callback.helper:
        return (
            f"the commit is in {callback.label}, reached from a callback that runs on "
            "loss; keep it off the lost path by hand"
        )
    if isinstance(func, ast.Lambda):
        return "the callback is a lambda; pass an on_lost= that does not commit by hand"
    body = lost_body(planner, callback, func)
    kept = body if isinstance(body, tuple) else ()
    if callback.lost_fallthrough == "listener" and callback.owner is not None:
        found = listener_lost(planner, callback, func, kept)
    elif callback.lost_fallthrough == "confluent" and callback.api == "confluent":
        found = confluent_lost(planner, callback, func, kept)
    else:
        return (
            f"{callback.label} is itself called for lost partitions{via}; drop the commit "
            "there by hand"
        )
    if isinstance(found, str):
        return found
    if isinstance(body, str):
        return body
    problem = called_on_loss(planner, callback, func)
    return problem if problem is not None else found


SHAPE = Shape(
    name="lost handler (KRB104)",
    planner="fixes",
    recognises=(
        "a committing callback that also runs on loss through the listener's or "
        "confluent's fall-through"
    ),
    plan=("add_stub_after (+ set_keyword on_lost=)"),
    fixtures=(
        "tests/codemods/fixtures/fixes",
        "tests/codemods/test_fixes.py",
        "tests/codemods/test_fix_cli.py",
    ),
)
