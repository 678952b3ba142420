from decimal import Decimal

from orders.models import Order


def test_from_json() -> None:
    order = Order.from_json(b'{"id": "o-1", "customer": "c-9", "total": 12.5}')
    assert order.total == Decimal("12.5")
    assert order.currency == "EUR"
