"""What checking a file reports: a status, findings, a reason. Imports nothing of the package.

Every front end (flake8, ``rebalance-guard check``, ``migrate``, the Spark scan) and the
codemods share these types, so they live apart from the engine that produces them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

#: The one file-status type of lint, codemods and scan. The rules and the codemods produce
#: the first five; the reading layer (check, migrate, the scan) adds the rest for files that
#: never reach them.
FileStatus = Literal[
    "ok",
    "syntax_error",
    "decode_error",
    "too_large",
    "crashed",
    "binary",
    "unreadable",
    "not_regular",
    "symlink",
    "symlink_outside",
]

#: What a finding means for the team reading it (DESIGN.md, "Each finding has a kind"): a
#: *bug* misbehaves today on the client it targets, a *risk* works today and breaks under a
#: condition its rule names, *advice* is the KIP-1306 migration (works today; the view does
#: it differently). The rule that fires decides it from the facts it sees
#: (:class:`rebalance_lint.rules.rule.KindCase`); :mod:`rebalance_lint.kinds` is how every
#: output reads it.
Kind = Literal["bug", "risk", "advice"]


@dataclass(frozen=True, order=True)
class Finding:
    """One rule hit. ``line`` is 1-based, ``col`` 0-based (as ``ast``); flake8 adds 1 itself.

    ``kind`` is the rule's decision for this hit; every finding the engine reports has one.
    It is None only on findings built to ask whether a ``# noqa`` comment covers a code
    (:func:`rebalance_lint.noqa.without_suppressed` reads line and code alone).
    """

    line: int
    col: int
    code: str
    message: str
    fixable: bool
    kind: Kind | None = None

    def as_dict(self) -> dict[str, object]:
        """The fields by name, in order (``dataclasses.asdict``'s answer, without its deep
        copy: ``check --output-format json`` writes thousands)."""
        return {
            "line": self.line,
            "col": self.col,
            "code": self.code,
            "message": self.message,
            "fixable": self.fixable,
            "kind": self.kind,
        }


@dataclass(frozen=True)
class FileReport:
    """What checking one file produced: a status, why, and the findings (empty unless ok)."""

    status: FileStatus
    findings: tuple[Finding, ...] = ()
    reason: str = ""
    skipped: bool = field(default=False)  # True when the cheap byte check ruled Kafka out
