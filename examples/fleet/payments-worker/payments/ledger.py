"""Double-entry ledger rows for settled payments."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone


@dataclass
class Entry:
    account: str
    amount_cents: int
    booked_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))


def balance(entries: list[Entry], account: str) -> int:
    return sum(e.amount_cents for e in entries if e.account == account)
