"""The deviations table (docs/oracle-deviations.md), read by the oracle tests.

Every difference between Java's trace and a Python view's trace of the same scenario and
protocol is a row there: which check, what Java does, what the Python view does, and why it
stays (or that the view is to be fixed). A difference without a row fails the cell, and so does
a row whose difference is gone (the table must not outlive what it names).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

TABLE = Path(__file__).resolve().parents[2] / "docs" / "oracle-deviations.md"
COLUMNS = ("scenario", "check", "clients", "protocols", "java", "python", "decision", "why")
#: The check name of a row saying a client does not run a protocol at all.
PROTOCOL = "protocol"


@dataclass(frozen=True)
class Row:
    scenario: str
    check: str
    clients: str
    protocols: str
    java: str
    python: str
    decision: str
    why: str

    @staticmethod
    def _covers(cell: str, value: str) -> bool:
        return cell == "*" or value in {v.strip() for v in cell.split(",")}

    def covers(self, scenario: str, check: str, client: str, protocol: str) -> bool:
        return (
            self.check == check
            and self._covers(self.scenario, scenario)
            and self._covers(self.clients, client)
            and self._covers(self.protocols, protocol)
        )


def _cell(text: str) -> str:
    return text.strip().strip("`").strip()


def rows(path: Path = TABLE) -> list[Row]:
    """The rows of the table whose header is exactly :data:`COLUMNS`."""
    found: list[Row] = []
    in_table = False
    for line in path.read_text().splitlines():
        if not line.startswith("|"):
            in_table = False
            continue
        cells = [_cell(c) for c in line.strip().strip("|").split("|")]
        if tuple(c.lower() for c in cells) == COLUMNS:
            in_table = True
        elif in_table and not set("".join(cells)) <= set("-: "):
            found.append(Row(*cells))
    return found


def show(value: Any) -> str:
    """A check's value as the table writes it (holds, violated, true, false, ok, fails, none)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def find(table: list[Row], scenario: str, check: str, client: str, protocol: str) -> Row | None:
    return next((r for r in table if r.covers(scenario, check, client, protocol)), None)
