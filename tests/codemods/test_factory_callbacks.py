# ruff: noqa: E501  (sources and messages as the codemod prints them)
"""A confluent callback made by a factory of the file (``shapes/factory_callbacks.py``,
held_out_7 012): ``on_assign=self._pin_on_assign(group)`` / ``on_assign=starting_at(0)``,
the factory defining one closure and returning it. The listener class takes the made callback
in its ``__init__`` (the factory still runs where the subscribe() ran it) and calls it with the
view; the closure takes the view (its final assign becomes seeks) and the factory's return
annotation says so. A factory doing more, used elsewhere, or whose closure is used otherwise,
stays refused with the next step."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_lint import check_source

FIXTURES = Path(__file__).parent / "fixtures"


def test_the_fixture_migrates_to_its_twin_and_checks_clean() -> None:
    before = (FIXTURES / "factory_callbacks.py").read_bytes()
    assert "KRB203" in {f.code for f in check_source(before, "factory_callbacks.py").findings}
    result = migrate_source(before, "factory_callbacks.py")
    assert not result.manual, result.manual
    after = (FIXTURES / "migrated" / "factory_callbacks.py").read_bytes()
    assert result.new_source == after
    assert not [f for f in check_source(after, "factory_callbacks.py").findings if f.code.startswith("KRB2")]
    assert migrate_source(after, "factory_callbacks.py").new_source is None


SOURCE = """
from confluent_kafka import Consumer


def starting_at(offset):
    def assigned(consumer, partitions):
        for p in partitions:
            p.offset = offset
        consumer.assign(partitions)

    return assigned
{more}

c = Consumer({{}})
c.subscribe(["t"], on_assign=starting_at(5))
"""


def test_a_module_level_factory() -> None:
    result = migrate_source(textwrap.dedent(SOURCE.format(more="")).encode(), "app.py")
    assert not result.manual, result.manual
    assert result.new_source is not None
    after = result.new_source.decode()
    assert "subscribe(c, [\"t\"], RebalanceCallbacks(starting_at(5)))" in after
    assert "        for partition in partitions:\n            consumer.seek(partition)\n" in after
    assert "self.on_assign(consumer, partitions)" in after


REFUSED = [
    ("a factory doing more",
     SOURCE.replace("    return assigned", "    print('made')\n    return assigned").format(more=""),
     "on_assign= is made by starting_at(), which does more than define one def and return it; make it just that (or register a def of this file), then run migrate again"),
    ("a factory used elsewhere",
     SOURCE.format(more="\n\nkept = starting_at(1)\n"),
     "on_assign= is made by starting_at(), which is used elsewhere too, where the callback it makes would take the rebalance view; use it only at this subscribe() first"),
    ("a closure used otherwise",
     SOURCE.replace("    return assigned", "    assigned.offset = offset\n    return assigned").format(more=""),
     "on_assign= is made by starting_at(), which does more than define one def and return it; make it just that (or register a def of this file), then run migrate again"),
    ("a closure naming itself",
     SOURCE.replace("        consumer.assign(partitions)", "        print(assigned)\n        consumer.assign(partitions)").format(more=""),
     "assigned, which starting_at() makes for on_assign=, is used there other than by its return; use it only there first"),
    ("a factory next to a plain callback",
     SOURCE.replace('on_assign=starting_at(5))', 'on_assign=starting_at(5), on_revoke=revoked)').format(more="\n\ndef revoked(consumer, partitions):\n    pass\n"),
     "on_revoke= is not made by a factory of this file like the other callbacks of this subscribe(); register defs or factory calls alike first"),
]
REASONS = [reason for *_, reason in REFUSED]


@pytest.mark.parametrize(("name", "source", "reason"), REFUSED, ids=[c[0] for c in REFUSED])
def test_anything_else_stays_refused(name: str, source: str, reason: str) -> None:
    result = migrate_source(textwrap.dedent(source).encode(), "app.py")
    assert result.status == "ok" and result.new_source is None, name
    assert [m.reason for m in result.manual] == [reason], result.manual
