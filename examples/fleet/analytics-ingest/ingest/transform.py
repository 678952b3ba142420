"""Turn raw click events into rows for the warehouse."""

import json


def to_row(raw: bytes) -> dict[str, object]:
    event = json.loads(raw)
    return {
        "user": event["u"],
        "page": event["p"].lower(),
        "ts": int(event["t"]),
    }
