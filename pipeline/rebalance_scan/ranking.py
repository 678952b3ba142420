"""Which repository to look at first: the one ranking every output of a scan shares.

The HTML report, the console summary, ``summary.json`` and ``repositories.parquet`` all call
:func:`rank_repositories`, so they can never disagree about the order or the reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rebalance_scan.tables import RepoReadiness

# Shown on the report page and stored in summary.json: the order, in words.
RANKING_RULE = (
    "Repositories are ranked by what to do first: bugs (findings of kind bug, which "
    "misbehave today) come first, most bugs first; then risks (findings that break under a "
    "condition their rule names), most first; then sites the codemods leave for a person "
    "(manual sites), most first; then sites `rebalance-guard migrate` rewrites by itself "
    "(auto-migratable sites), most first. Ties keep the alphabetical order of the names. "
    "Repositories with none of these come last."
)

#: The first reason that applies, in ranking order.
TIERS = ("bugs", "risks", "manual", "auto", "none")


@dataclass(frozen=True)
class RankedRepo:
    """One repository's place in the ranking and why it sits there."""

    rank: int  # 1 = look here first
    tier: str  # one of TIERS: the first of bugs / risks / manual / auto sites it has
    reason: str  # e.g. "3 bugs to fix, then 2 sites to migrate by hand"
    entry: RepoReadiness


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _tier(entry: RepoReadiness) -> str:
    if entry.bugs:
        return "bugs"
    if entry.risks:
        return "risks"
    if entry.manual_sites:
        return "manual"
    return "auto" if entry.auto_sites else "none"


def _reason(entry: RepoReadiness) -> str:
    parts = []
    if entry.bugs:
        parts.append(f"{_plural(entry.bugs, 'bug')} to fix")
    if entry.risks:
        parts.append(f"{_plural(entry.risks, 'risk')} to judge")
    if entry.manual_sites:
        parts.append(f"{_plural(entry.manual_sites, 'site')} to migrate by hand")
    if entry.auto_sites:
        parts.append(_plural(entry.auto_sites, "auto-migratable site"))
    if parts:
        return ", then ".join(parts)
    if entry.bad_files:
        return f"nothing found; {_plural(entry.bad_files, 'file')} could not be checked"
    return "nothing to do" if entry.kafka_files else "no Kafka consumers found"


def sort_key(entry: RepoReadiness) -> tuple[int, int, int, int, str]:
    """Bugs, then risks, then manual sites, then auto-migratable sites (more first), then
    the name."""
    return (-entry.bugs, -entry.risks, -entry.manual_sites, -entry.auto_sites, entry.repo)


def rank_repositories(entries: Iterable[RepoReadiness]) -> list[RankedRepo]:
    """Every repository, ranked: index 0 is rank 1, the one to look at first."""
    ordered = sorted(entries, key=sort_key)
    return [
        RankedRepo(rank, _tier(entry), _reason(entry), entry)
        for rank, entry in enumerate(ordered, start=1)
    ]
