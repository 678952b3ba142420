"""The console summary printed after a scan: what the platform team reads first."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rebalance_scan.scan import ScanResult


def _size(count: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if count < 1024 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024  # type: ignore[assignment]
    return str(count)


def format_summary(result: ScanResult) -> str:
    """Files and statuses, findings per rule, readiness per repository, where outputs are."""
    t = result.totals
    lines = [
        f"Scanned {t.files} Python files ({_size(t.bytes)}) in {t.repos} repositories "
        f"in {result.seconds:.1f}s.",
        "File status: " + ", ".join(f"{n} {status}" for status, n in t.statuses.items()),
    ]
    bugs = sum(n for code, n in t.rules.items() if code.startswith("KRB1"))
    lines.append(
        f"Findings: {sum(t.rules.values())} ({bugs} bugs KRB1xx, "
        f"{sum(t.rules.values()) - bugs} migration advice KRB2xx)"
    )
    lines.extend(f"  {code}  {n}" for code, n in t.rules.items())
    lines.append(
        f"Migration readiness: {t.auto_sites} auto-migratable sites, {t.manual_sites} manual"
    )
    width = max((len(e.repo) for e in result.readiness), default=4)
    lines.append(f"  {'repository':<{width}}  bugs  auto  manual  readiness  verdict")
    for e in result.readiness:
        share = "n/a" if e.readiness is None else f"{e.readiness:.0%}"
        lines.append(
            f"  {e.repo:<{width}}  {e.bugs:>4}  {e.auto_sites:>4}  {e.manual_sites:>6}  "
            f"{share:>9}  {e.verdict}"
        )
    lines.append(
        f"Outputs in {result.out}/: findings.parquet, files.parquet, manual_sites.parquet, "
        "readiness.parquet, report.sarif, sarif/<repo>.sarif, report.html, summary.json"
    )
    return "\n".join(lines)
