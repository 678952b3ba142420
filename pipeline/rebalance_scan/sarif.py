"""The scan's SARIF logs: the whole fleet, and one per repository (GitHub code scanning).

GitHub uploads are per repository with paths relative to its root, so each repository gets
its own log; the fleet log prefixes paths with the repository name. The writer itself is
:func:`rebalance_lint.sarif.build_sarif`, the same one ``rebalance-guard check`` uses.
"""

from __future__ import annotations

from rebalance_lint.sarif import Json, build_sarif


def fleet_sarif(files: list[Json]) -> Json:
    return build_sarif(files, lambda row: f"{row['repo']}/{row['path']}")


def repo_sarif(files: list[Json]) -> Json:
    return build_sarif(files, lambda row: str(row["path"]))
