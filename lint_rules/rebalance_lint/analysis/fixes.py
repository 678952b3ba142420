"""The auto-fixes for KRB103 and KRB104, planned from the program model: the one place that
decides whether such a finding has a fix, and what the fix rewrites.

Like the migration planner (:mod:`.migration`), this reads the ``ast`` model and stages
:class:`~.edits.Edit` actions at source spans; ``rebalance_codemods`` applies them with LibCST
(``rebalance-guard check --fix``, and ``migrate`` after its own edits). A fix is planned only
where the rewrite is provably the intended one and nothing else; everywhere else the finding
gets the reason instead. This module dispatches each commit of each callback to the fix
shapes: :mod:`.shapes.fix_synchronous_commit` (KRB103), :mod:`.shapes.fix_lost_handler`
(KRB104, with :mod:`.shapes.fix_lost_listener`, :mod:`.shapes.fix_lost_confluent` and
:mod:`.shapes.fix_lost_body`), :mod:`.shapes.fix_harmless_on_loss` (what needs no fix).

Every fix is idempotent: once applied, the finding it fixes is gone, so nothing is planned
again. ``tests/codemods/test_fixes.py`` holds each case, refusals included.
"""

from __future__ import annotations

import ast
import weakref

from rebalance_guard._client_facts import COMMIT_METHODS as COMMITS

from rebalance_lint.analysis.fix_plan import (
    FIX_CODES,
    Fix,
    FixContext,
    Fixes,
    Key,
    _reached,
    fix_key,
)
from rebalance_lint.analysis.model import Analysis
from rebalance_lint.analysis.shapes.fix_harmless_on_loss import harmless_on_loss
from rebalance_lint.analysis.shapes.fix_lost_handler import lost_handler
from rebalance_lint.analysis.shapes.fix_synchronous_commit import asynchronous_commit, synchronous

#: The names the rules, the codemods and the tests import from here.
__all__ = [
    "FIX_CODES",
    "Fix",
    "Fixes",
    "Key",
    "asynchronous_commit",
    "fix_key",
    "harmless_on_loss",
    "has_fix",
    "planned_fixes",
]

_PLANNED: dict[int, Fixes] = {}


def planned_fixes(analysis: Analysis) -> Fixes:
    """The fixes of the file ``analysis`` models, planned once (on the first fixable question)."""
    found = _PLANNED.get(id(analysis))
    if found is None:
        found = _Planner(analysis).run()
        _PLANNED[id(analysis)] = found
        weakref.finalize(analysis, _PLANNED.pop, id(analysis), None)
    return found


def has_fix(code: str, site: ast.AST, analysis: Analysis) -> bool:
    """Whether the finding of ``code`` at ``site`` has an auto-fix."""
    return fix_key(code, site) in planned_fixes(analysis).fixes


class _Planner(FixContext):
    """Plans a file's fixes: each commit of each callback, to the fix shapes."""

    def run(self) -> Fixes:
        if self.analysis.tree is None:
            return self.fixes
        for callback in self.analysis.callbacks:
            commits = [e for e in callback.effects if e.kind == "call" and e.name in COMMITS]
            if not commits:
                continue
            lost_keys: set[Key] = set()
            failing = [e for e in commits if not harmless_on_loss(e, callback, self.analysis)]
            if "lost" in callback.kinds and failing:
                lost = lost_handler(self, callback)
                for effect in failing:
                    key = fix_key("KRB104", effect.anchor)
                    reason = _reached(effect) if effect.via else lost
                    if isinstance(reason, str):
                        self.fixes.refused[key] = reason
                    else:
                        self.fixes.fixes[key] = Fix(reason)
                        lost_keys.add(key)
            if "revoked" in callback.kinds:
                for effect in commits:
                    if asynchronous_commit(effect, callback) is None:
                        continue
                    key = fix_key("KRB103", effect.anchor)
                    found = synchronous(self, callback, effect, lost_keys)
                    if isinstance(found, str):
                        self.fixes.refused[key] = found
                    else:
                        self.fixes.fixes[key] = found
        return self.fixes
