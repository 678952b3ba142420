"""The console summary printed after a scan: what the platform team reads first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rebalance_lint.kinds import describe_counts

if TYPE_CHECKING:
    from rebalance_scan.ranking import RankedRepo
    from rebalance_scan.scan import ScanResult

TOP_REPOSITORIES = 10  # the console shows the head of the ranking; the rest is in the outputs
MAX_NAME = 48


def _name(repo: str) -> str:
    """A repository name cut to MAX_NAME characters in the middle (the console has no wrap)."""
    if len(repo) <= MAX_NAME:
        return repo
    half = (MAX_NAME - 1) // 2
    return repo[:half] + "\u2026" + repo[-(MAX_NAME - 1 - half) :]


def _top_repositories(ranked: list[RankedRepo]) -> list[str]:
    """The first TOP_REPOSITORIES repositories of the shared ranking, with their reasons."""
    shown = [r for r in ranked[:TOP_REPOSITORIES] if r.tier != "none"]
    if not shown:
        return [f"Where to start: nothing to do in {len(ranked)} repositories."]
    width = max(len(_name(r.entry.repo)) for r in shown)
    lines = [
        f"Where to start (top {len(shown)} of {len(ranked)} repositories; bugs first, then "
        "risks, then manual sites, then auto-migratable sites):",
        f"  rank  {'repository':<{width}}  bugs  risks  manual  auto  why",
    ]
    for r in shown:
        e = r.entry
        lines.append(
            f"  {r.rank:>4}  {_name(e.repo):<{width}}  {e.bugs:>4}  {e.risks:>5}  "
            f"{e.manual_sites:>6}  {e.auto_sites:>4}  {r.reason}"
        )
    rest = ranked[len(shown) :]
    if rest:
        busy = [r for r in rest if r.tier != "none"]
        lines.append(
            f"  ... {len(rest)} more ({len(busy)} with something to do: "
            f"{sum(r.entry.bugs for r in busy)} bugs, "
            f"{sum(r.entry.risks for r in busy)} risks, "
            f"{sum(r.entry.manual_sites for r in busy)} manual sites, "
            f"{sum(r.entry.auto_sites for r in busy)} auto sites): "
            "see repositories.parquet and report.html"
        )
    return lines


def _size(count: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if count < 1024 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024  # type: ignore[assignment]
    return str(count)


def format_summary(result: ScanResult) -> str:
    """Files and statuses, findings per rule, readiness per repository, where outputs are."""
    t = result.totals
    diffs = bool((result.out / "diffs").is_dir())
    lines = [
        f"Scanned {t.files} Python files ({_size(t.bytes)}) in {t.repos} repositories "
        f"in {result.seconds:.1f}s.",
        "File status: " + ", ".join(f"{n} {status}" for status, n in t.statuses.items()),
    ]
    lines.append(f"Findings: {sum(t.rules.values())} ({describe_counts(t.kinds)})")
    lines.extend(f"  {code_kind}  {n}" for code_kind, n in t.rule_kinds.items())
    lines.append(
        f"Migration readiness: {t.auto_sites} auto-migratable sites, {t.manual_sites} manual"
    )
    lines.extend(_top_repositories(result.ranked))
    lines.append(
        f"Outputs in {result.out}/: findings.parquet, files.parquet, manual_sites.parquet, "
        "readiness.parquet, repositories.parquet, report.sarif, sarif/<repo>.sarif, report.html, "
        "summary.json" + (", diffs.parquet, diffs/<repo>.diff" if diffs else "")
    )
    return "\n".join(lines)
