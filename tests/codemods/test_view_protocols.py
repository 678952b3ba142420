# ruff: noqa: E501  (sources and messages as the codemod prints them)
"""A helper's consumer parameter annotated with a Protocol of its own file
(``shapes/view_protocols.py``, held_out_7 002): when every member of the protocol is a method
the helper calls on the parameter, those calls are checked as the view's, so the view meets
the protocol and the annotation stays. A protocol asking for more than the helper calls, or
for an attribute, keeps the refusal that names the annotation to write."""

from __future__ import annotations

from pathlib import Path

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_lint import check_source

FIXTURES = Path(__file__).parent / "fixtures"
SOURCE = (FIXTURES / "view_protocols.py").read_text()


def test_the_fixture_migrates_to_its_twin_and_checks_clean() -> None:
    before = SOURCE.encode()
    assert {"KRB201", "KRB202", "KRB203"} <= {f.code for f in check_source(before, "view_protocols.py").findings}
    result = migrate_source(before, "view_protocols.py")
    assert not result.manual, result.manual
    after = (FIXTURES / "migrated" / "view_protocols.py").read_bytes()
    assert result.new_source == after
    assert b"async def seek_assigned_to_end(consumer: OffsetSeeker, " in after  # the annotation stays
    assert not [f for f in check_source(after, "view_protocols.py").findings if f.code.startswith("KRB2")]
    assert migrate_source(after, "view_protocols.py").new_source is None


PROTOCOL = """class OffsetSeeker(Protocol):
    async def end_offsets(self, partitions: list[Any]) -> dict[Any, int]: ...

    def seek(self, partition: Any, offset: int) -> None: ...
"""
REFUSED = [
    ("a member the helper does not call",
     SOURCE.replace(PROTOCOL, PROTOCOL + "\n    async def getmany(self) -> dict[Any, list[Any]]: ...\n")),
    ("an attribute",
     SOURCE.replace(PROTOCOL, PROTOCOL + "\n    group_id: str\n")),
    ("a decorated member",
     SOURCE.replace("    def seek(self, partition: Any, offset: int) -> None: ...", "    @property\n    def seek(self) -> Any: ...")),
    ("not a protocol",
     SOURCE.replace("class OffsetSeeker(Protocol):", "class OffsetSeeker:")),
]


@pytest.mark.parametrize(("name", "source"), REFUSED, ids=[c[0] for c in REFUSED])
def test_anything_else_keeps_the_annotation_refusal(name: str, source: str) -> None:
    assert source != SOURCE, name
    result = migrate_source(source.encode(), "view_protocols.py")
    assert result.status == "ok" and result.new_source is None, name
    assert result.manual and all(
        "whose parameter consumer is annotated OffsetSeeker, which the view is not" in m.reason
        for m in result.manual
    ), result.manual


def test_a_member_the_view_lacks_is_refused_by_the_call_check() -> None:
    """A protocol naming ``getone``, which the helper calls: every member is called, but the
    view offers no ``getone``, so the helper's own call check refuses."""
    source = SOURCE.replace(PROTOCOL, PROTOCOL + "\n    async def getone(self) -> Any: ...\n").replace(
        "    end_offsets = await consumer.end_offsets(list(assigned))\n",
        "    await consumer.getone()\n    end_offsets = await consumer.end_offsets(list(assigned))\n",
    )
    result = migrate_source(source.encode(), "view_protocols.py")
    assert result.new_source is None
    assert result.manual and all("consumer.getone" in m.reason for m in result.manual), result.manual
