# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""An owner's callbacks calling the consumer it stored and registered them on
(``self._consumer.commit()`` in ``_on_revoke(self, _consumer, partitions)``): migrated, that
call goes to the view the callback receives, so KRB112 (a listener bypassing its view) has
nothing to report (``shapes/owner_stored_consumer.py``). Calls the view does not take as
written, calls in nested functions and kept methods whose other callers pass another
consumer stay as they were (and KRB112 reports them)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_lint.api import check_source

BEFORE = """
    from confluent_kafka import Consumer


    class Service:
        def __init__(self, config):
            self._consumer = Consumer(config)

        def run(self, topics):
            self._consumer.subscribe(topics, on_revoke=self._revoked)
            while True:
                self._consumer.poll(1.0)

        def _revoked(self, _consumer, partitions):
            {body}
"""


def _migrate(body: str, extra: str = "") -> str:
    source = textwrap.dedent(BEFORE).replace("{body}", body) + textwrap.dedent(extra)
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and not result.manual, result
    assert result.new_source is not None
    assert migrate_source(result.new_source, "app.py").new_source is None  # idempotent
    return result.new_source.decode()


def _bypasses(source: str) -> list[str]:
    return [
        f.message for f in check_source(source.encode(), "app.py").findings if f.code == "KRB112"
    ]


def test_a_commit_on_the_stored_consumer_becomes_the_views() -> None:
    after = _migrate("self._consumer.commit(asynchronous=False)")
    assert (
        "    def on_partitions_revoked(self, partitions, _consumer: RebalanceConsumer):\n        _consumer.commit(asynchronous=False)\n"
        in after
    )
    assert "self._consumer.commit" not in after
    assert _bypasses(after) == []


def test_the_wart_fixture_no_longer_bypasses_its_view() -> None:
    """The fixture's migrated twin (before this shape it kept ``self._consumer.commit()``,
    which KRB112 flagged)."""
    twin = Path(__file__).parent / "fixtures" / "migrated" / "owner_ignores_consumer_argument.py"
    assert _bypasses(twin.read_text()) == []
    assert "            _consumer.commit(asynchronous=False)\n" in twin.read_text()


KEPT = [
    (
        "in a nested function (it may run after the callback returned)",
        "threading.Thread(target=lambda: self._consumer.commit(asynchronous=False)).start()",
        "",
    ),
    (
        "a method the view does not offer",
        "self._consumer.close()",
        "",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("name", "body", "extra"), KEPT, ids=[k[0] for k in KEPT])
def test_other_uses_of_the_stored_consumer_stay(name: str, body: str, extra: str) -> None:
    source = "import threading\n" + textwrap.dedent(BEFORE).replace("{body}", body)
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and not result.manual and result.new_source is not None, result
    assert body in result.new_source.decode()  # the callback migrated, this call kept


def test_a_kept_method_called_with_another_consumer_keeps_the_stored_one() -> None:
    source = textwrap.dedent(BEFORE).replace(
        "{body}", "self._consumer.commit(asynchronous=False)"
    ) + textwrap.dedent(
        """
        def drain(service, other):
            service._revoked(other, [])
        """
    )
    result = migrate_source(source.encode(), "app.py")
    assert result.new_source is not None
    assert "self._consumer.commit(asynchronous=False)" in result.new_source.decode()


def test_a_kept_method_called_with_the_stored_consumer_passes_it_on() -> None:
    source = (
        textwrap.dedent(BEFORE)
        .replace("{body}", "self._consumer.commit(asynchronous=False)")
        .replace(
            "        while True:\n            self._consumer.poll(1.0)\n",
            "        try:\n            self._consumer.poll(1.0)\n        finally:\n"
            "            self._revoked(self._consumer, self._consumer.assignment())\n",
        )
    )
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and not result.manual, result
    assert result.new_source is not None
    after = result.new_source.decode()
    assert "        _consumer.commit(asynchronous=False)\n" in after
    assert "self.on_partitions_revoked(partitions, _consumer)" in after
