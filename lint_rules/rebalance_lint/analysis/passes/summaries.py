"""Effects: each callback's effect summary (what it does to a consumer, through its calls)."""

from __future__ import annotations

from rebalance_lint.analysis.effects import Summaries
from rebalance_lint.analysis.passes.draft import Draft


def effect_summaries(draft: Draft) -> None:
    """Set every callback's ``effects`` (:mod:`rebalance_lint.analysis.effects`)."""
    summaries = Summaries(draft.unit)
    for callback in draft.callbacks.values():
        callback.effects = summaries.of_callback(callback)
