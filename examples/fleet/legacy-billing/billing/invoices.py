"""Invoice numbering; no Kafka here."""

import itertools

_counter = itertools.count(1000)


def next_invoice_number(prefix: str = "INV") -> str:
    return f"{prefix}-{next(_counter):06d}"
