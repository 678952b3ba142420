"""Callbacks that are bound methods of a handler object the registering class keeps in an
attribute (``on_assign=self._handler.on_assign`` with ``self._handler = Handler()`` stored
once: shapes/owner_callbacks.py, migration_facts.stored_once): the handler's class becomes the
listener, registered as it is held (fixture: tests/codemods/fixtures/held_handler.py, migrated
and type-checked by test_fixtures.py / test_migrated_type_checks.py). Where the attribute may
hold anything else, the registration is refused as before."""

from __future__ import annotations

import pytest
from rebalance_codemods.api import migrate_source

SOURCE = """
from confluent_kafka import Consumer


class Handler:
    def on_assign(self, consumer, partitions):
        print("assigned", partitions)

    def on_revoke(self, consumer, partitions):
        consumer.commit(asynchronous=False)


class Worker:
    def __init__(self):
        self.consumer = Consumer({"group.id": "g"})
        self._handler = HANDLER

    def start(self):
        self.consumer.subscribe(
            ["t"], on_assign=self._handler.on_assign, on_revoke=self._handler.on_revoke
        )
EXTRA"""

NOT_A_METHOD = (
    "on_assign= is not a method of the class that makes this call, reached through its self; "
    "register a method of this class or a function defined here instead"
)


def _migrate(handler: str = "Handler()", extra: str = "") -> tuple[str | None, list[str]]:
    source = SOURCE.replace("HANDLER", handler).replace("EXTRA", extra)
    result = migrate_source(source.encode(), "worker.py")
    assert result.status == "ok", result.reason
    new = result.new_source.decode() if result.new_source is not None else None
    return new, [m.reason for m in result.manual]


def test_the_held_handler_becomes_the_listener() -> None:
    new, manual = _migrate()
    assert manual == []
    assert new is not None
    assert "class Handler(RebalanceListener):" in new
    assert "    def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):\n" in new
    assert '        subscribe(self.consumer, ["t"], self._handler)\n' in new
    assert migrate_source(new.encode(), "worker.py").new_source is None  # idempotent


@pytest.mark.parametrize(
    ("handler", "extra"),
    [
        (
            "Handler()",
            "\n    def reset(self):\n        self._handler = Handler()\n",
        ),  # stored twice
        ("make_handler()", "\ndef make_handler():\n    return Handler()\n"),  # not a class
        ("Handler() if True else None", ""),  # not a creation
    ],
    ids=["stored-twice", "factory", "expression"],
)
def test_an_attribute_that_may_hold_something_else_is_refused(handler: str, extra: str) -> None:
    new, manual = _migrate(handler, extra)
    assert NOT_A_METHOD in manual
    assert new is None or "class Handler:" in new  # the handler is untouched
