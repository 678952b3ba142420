"""Order records as they arrive on the wire."""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Order:
    order_id: str
    customer_id: str
    total: Decimal
    currency: str = "EUR"

    @classmethod
    def from_json(cls, raw: bytes) -> "Order":
        data = json.loads(raw)
        return cls(
            order_id=data["id"],
            customer_id=data["customer"],
            total=Decimal(str(data["total"])),
            currency=data.get("currency", "EUR"),
        )
