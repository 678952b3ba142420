# ruff: noqa: E501  (sources as the codemod prints them)
"""A confluent owner's callbacks reaching the consumer it registered on through its own helper
methods (``shapes/owner_helper_methods.py``): the helpers get a keyword-only ``consumer=None``
and the callbacks pass their view, so the migrated callbacks no longer commit on the stored
consumer (``check`` finds no KRB112 in the output: the lint follows a view handed on by
keyword too). Where that rewrite is not provable, the migration is what it was before and
``check`` reports the bypass."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from rebalance_codemods.api import migrate_source
from rebalance_lint import check_source

FIXTURES = Path(__file__).parent / "fixtures"


def _codes(source: bytes) -> list[str]:
    return sorted(f.code for f in check_source(source, "app.py").findings)


def test_the_fixture_migrates_to_its_twin_and_checks_clean() -> None:
    before = (FIXTURES / "owner_helper_methods.py").read_bytes()
    result = migrate_source(before, "owner_helper_methods.py")
    assert not result.manual, result.manual
    after = (FIXTURES / "migrated" / "owner_helper_methods.py").read_bytes()
    assert result.new_source == after
    assert _codes(after) == []  # no KRB112: the helpers commit on the view the callback hands on
    assert migrate_source(after, "owner_helper_methods.py").new_source is None


SOURCE = """
from confluent_kafka import Consumer


class Worker:
    def __init__(self, conf):
        self._consumer = Consumer(conf)
        self._paused = set()

    def start(self):
        self._consumer.subscribe(["t"], on_revoke=self._on_revoke)

    def _on_revoke(self, _consumer, _partitions):
        self._resume_all()

    def _resume_all(self):
{body}
"""


def test_an_untyped_helper_takes_the_view_by_keyword() -> None:
    body = "        if self._consumer is not None and self._paused:\n            self._consumer.resume(list(self._paused))\n            self._paused.clear()"
    result = migrate_source(textwrap.dedent(SOURCE.format(body=body)).encode(), "app.py")
    assert not result.manual and result.new_source is not None, result.manual
    after = result.new_source.decode()
    assert "        self._resume_all(consumer=_consumer)\n" in after
    assert "    def _resume_all(self, *, consumer=None):\n" in after
    assert "(self._consumer if consumer is None else consumer).resume(list(self._paused))" in after
    assert _codes(result.new_source) == []


def test_a_helper_using_the_consumer_later_is_left_as_it_was() -> None:
    """A nested function may run after the callback, when no view is valid: no rewrite; the
    site migrates as before and check reports the helper's bypass (KRB112)."""
    body = "        def later():\n            self._consumer.resume(list(self._paused))\n        later()"
    result = migrate_source(textwrap.dedent(SOURCE.format(body=body)).encode(), "app.py")
    assert result.new_source is not None
    after = result.new_source.decode()
    assert "        self._resume_all()\n" in after and "consumer=None" not in after
    assert _codes(result.new_source) == ["KRB112"]


def test_a_callback_deleting_its_consumer_hands_no_view_on() -> None:
    """``del _consumer`` marks the parameter unused; a view handed on after it would raise
    UnboundLocalError (development 064 did: its migrated on_revoke passed consumer=consumer
    after ``del consumer``). The helpers stay as they were, the callback still runs."""
    body = "        if self._paused:\n            self._consumer.resume(list(self._paused))\n            self._paused.clear()"
    source = textwrap.dedent(SOURCE.format(body=body)).replace(
        "    def _on_revoke(self, _consumer, _partitions):\n",
        "    def _on_revoke(self, _consumer, _partitions):\n        del _consumer\n",
    )
    result = migrate_source(source.encode(), "app.py")
    assert not result.manual and result.new_source is not None, result.manual
    after = result.new_source.decode()
    assert "        del _consumer\n        self._resume_all()\n" in after and "consumer=None" not in after
    module: dict[str, Any] = {}
    exec(compile(after, "app.py", "exec"), module)
    worker = module["Worker"].__new__(module["Worker"])
    worker._paused = set()
    worker.on_partitions_revoked([], object())  # runs: no UnboundLocalError
    assert _codes(result.new_source) == ["KRB112"]
