"""Persistence for orders (Postgres in production, a dict in tests)."""

from __future__ import annotations

from orders.models import Order

_ORDERS: dict[str, Order] = {}


def save_order(order: Order) -> None:
    _ORDERS[order.order_id] = order


def get_order(order_id: str) -> Order | None:
    return _ORDERS.get(order_id)
