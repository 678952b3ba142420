"""The oracle's checks on hand-made traces: each invariant holds on a correct trace and
names the violation on a broken one; the comparison reads the deviations table strictly."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from tests.oracle import deviations, invariants
from tests.oracle.test_oracle import compare

T = "t-1"


def _cb(member: str, kind: str, start: int, end: int, parts: list[int], assignment: list[int],
        paused: list[int] | None = None, ops: list[dict[str, Any]] | None = None,
        after_paused: list[int] | None = None) -> dict[str, Any]:  # fmt: skip
    pairs = lambda ps: None if ps is None else [[T, p] for p in ps]  # noqa: E731
    return {
        "member": member, "kind": kind, "start": start, "end": end,
        "partitions": pairs(parts),
        "before": {"assignment": pairs(assignment), "paused": pairs(paused or [])},
        "ops": ops or [],
        "after": {"assignment": pairs(assignment), "paused": pairs(after_paused or paused or [])},
    }  # fmt: skip


def _op(op: str, parts: list[int], value: Any = None, ok: bool = True) -> dict[str, Any]:
    return {"op": op, "partitions": [[T, p] for p in parts], "ok": ok, "value": value}


def good(protocol: str = "eager") -> dict[str, Any]:
    """A joins and gets 0, 1 (pausing 0); B joins: A revokes (bare commit), B gets 1; B leaves."""
    steps = [
        {"step": {"produce": {"topic": "t", "count": 4}}, "start": 0, "end": 10},
        {"step": {"join": "A"}, "start": 10, "end": 11},
        {"step": {"settle": True}, "start": 11, "end": 200},
        {"step": {"join": "B"}, "start": 200, "end": 201},
        {"step": {"settle": True}, "start": 201, "end": 600},
        {"step": {"leave": "B"}, "start": 600, "end": 700},
        {"step": {"leave": "A"}, "start": 700, "end": 800},
    ]
    revoked_a = [0, 1] if protocol == "eager" else [1]
    kept = [0] if protocol != "eager" else []
    callbacks = [
        _cb("A", "assigned", 20, 30, [0, 1], [0, 1],
            ops=[_op("position", [0], 0), _op("position", [1], 0), _op("pause", [0])],
            after_paused=[0]),
        _cb("A", "revoked", 300, 310, revoked_a, [0, 1], paused=[0],
            ops=[*(_op("position", [p], 2) for p in revoked_a), _op("commit", revoked_a),
                 *(_op("committed", [p], 2) for p in revoked_a)]),
        *([_cb("A", "assigned", 400, 401, [0], [0])] if protocol == "eager" else []),
        _cb("B", "assigned", 402, 410, [1], [1], ops=[_op("position", [1], 2)]),
        _cb("B", "revoked", 610, 620, [1], [1], ops=[_op("position", [1], 2),
                                                     _op("commit", [1])]),
        _cb("A", "assigned", 650, 651, [1], [*kept, 1]),
        _cb("A", "revoked", 710, 720, [0, 1], [0, 1], ops=[_op("commit", [0, 1])]),
    ]  # fmt: skip
    return {
        "client": "java", "scenario": "handoff", "protocol": protocol, "topics": {"t": T, "u": "u"},
        "steps": steps, "callbacks": callbacks,
        "checkpoints": [
            {"at": 199, "members": {"A": {"assignment": [[T, 0], [T, 1]], "paused": [[T, 0]]}}},
            {"at": 599, "members": {
                "A": {"assignment": [[T, 0]], "paused": [] if protocol == "eager" else [[T, 0]]},
                "B": {"assignment": [[T, 1]], "paused": []},
            }},
        ],
        "records": {"A": [[T, 0, 0, 0], [T, 0, 1, 2], [T, 1, 0, 1]], "B": [[T, 1, 1, 3]]},
        "produced": {T: 4},
        "final_committed": [[T, 0, 2], [T, 1, 2]],
        "errors": [],
    }  # fmt: skip


@pytest.mark.parametrize("protocol", ["eager", "cooperative", "consumer"])
def test_oracle_a_correct_trace_holds_every_invariant(protocol: str) -> None:
    trace = good(protocol)
    assert {n: f(trace) for n, f in invariants.INVARIANTS.items() if f(trace)} == {}


def _broken(change: Any, protocol: str = "eager") -> dict[str, Any]:
    trace = copy.deepcopy(good(protocol))
    change(trace)
    return trace


def _cbs(trace: dict[str, Any], member: str, kind: str) -> list[dict[str, Any]]:
    return [c for c in trace["callbacks"] if c["member"] == member and c["kind"] == kind]


BROKEN = {
    "revoked_in_assignment": ("eager", lambda t: _cbs(t, "A", "revoked")[0]["before"].update(
        assignment=[[T, 0]])),
    "revoked_positions_readable": ("eager", lambda t: _cbs(t, "A", "revoked")[0]["ops"][0].update(
        value=None)),
    "assigned_positions_readable": ("eager", lambda t: _cbs(t, "B", "assigned")[0]["ops"][0].update(
        ok=False, value=None, error="boom")),
    "assigned_in_assignment": ("eager", lambda t: _cbs(t, "B", "assigned")[0]["before"].update(
        assignment=[])),
    "assigned_are_new": ("cooperative", lambda t: _cbs(t, "A", "assigned")[1].update(
        partitions=[[T, 0], [T, 1]])),
    "eager_revokes_everything": ("eager", lambda t: _cbs(t, "A", "revoked")[0].update(
        partitions=[[T, 1]])),
    "incremental_revokes_moved_only": ("cooperative", lambda t: _cbs(t, "A", "revoked")[0].update(
        start=202, partitions=[[T, 0], [T, 1]])),
    "incremental_subscription_change_revokes_dropped": ("cooperative", lambda t: t["steps"].insert(
        4, {"step": {"subscribe": {"member": "A", "topics": ["u"]}}, "start": 250, "end": 251})),
    "single_owner": ("eager", lambda t: _cbs(t, "B", "assigned")[0].update(start=305)),
    "revoke_commit_lands": ("eager", lambda t: _cbs(t, "A", "revoked")[0]["ops"][-1].update(
        value=1)),
    "assigned_start_unpaused": ("eager", lambda t: _cbs(t, "B", "assigned")[0]["before"].update(
        paused=[[T, 1]])),
    "pause_kept_while_owned": ("cooperative", lambda t: t["checkpoints"][1]["members"]["A"].update(
        paused=[])),
    "seek_then_position": ("eager", lambda t: _cbs(t, "B", "assigned")[0]["ops"].insert(
        0, _op("seek", [1], 1))),
    "final_committed_is_processed": ("eager", lambda t: t["final_committed"][0].__setitem__(2, 1)),
    "nothing_lost": ("eager", lambda t: t["records"]["B"][0].__setitem__(3, 99)),
    "fenced_member_gets_lost": ("eager", lambda t: t["steps"].insert(
        5, {"step": {"stall": "B"}, "start": 601, "end": 605})),
}  # fmt: skip


def test_oracle_every_invariant_has_a_broken_case() -> None:
    assert set(BROKEN) == set(invariants.INVARIANTS)


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_oracle_invariant_names_its_violation(name: str) -> None:
    protocol, change = BROKEN[name]
    trace = _broken(change, protocol)
    found = invariants.INVARIANTS[name](trace)
    assert found, f"{name} did not notice"
    others = {n for n, f in invariants.INVARIANTS.items() if f(good(protocol))}
    assert not others


def test_oracle_observations_of_a_lost_callback() -> None:
    trace = good()
    trace["callbacks"].append(_cb("A", "lost", 900, 901, [0], [0, 1], ops=[
        _op("position", [0], 3), _op("commit", [0], ok=False)]))  # fmt: skip
    seen = {n: f(trace) for n, f in invariants.OBSERVATIONS.items()}
    assert seen == {"lost_partitions_in_assignment": True, "lost_position": "readable",
                    "lost_bare_commit": "fails", "revoke_on_leave": True}  # fmt: skip
    assert invariants.lost_partitions_in_assignment(good()) is None


TABLE = """\
| scenario | check | clients | protocols | Java | Python | decision | why |
|---|---|---|---|---|---|---|---|
| handoff | nothing_lost | kafka_python, aiokafka | * | holds | violated | stays | test row |
"""


def _python(change: Any) -> dict[str, Any]:
    trace = _broken(change)
    trace["client"] = "aiokafka"
    return trace


def test_oracle_compare_needs_a_row_for_each_difference(tmp_path: Path) -> None:
    (tmp_path / "t.md").write_text(TABLE.replace("kafka_python, aiokafka", "confluent_kafka"))
    table = deviations.rows(tmp_path / "t.md")
    problems = compare(good(), _python(BROKEN["nothing_lost"][1]), table)
    assert len(problems) == 1 and "nothing_lost: Java holds, aiokafka violated" in problems[0]


def test_oracle_compare_accepts_a_listed_difference(tmp_path: Path) -> None:
    (tmp_path / "t.md").write_text(TABLE)
    table = deviations.rows(tmp_path / "t.md")
    assert compare(good(), _python(BROKEN["nothing_lost"][1]), table) == []


def test_oracle_compare_refuses_a_row_whose_difference_is_gone(tmp_path: Path) -> None:
    (tmp_path / "t.md").write_text(TABLE)
    table = deviations.rows(tmp_path / "t.md")
    problems = compare(good(), _python(lambda t: None), table)
    assert len(problems) == 1 and "remove its row" in problems[0]


def test_oracle_deviations_table_is_complete() -> None:
    """Every row of docs/oracle-deviations.md names a known check, and says why."""
    checks = {*invariants.INVARIANTS, *invariants.OBSERVATIONS, deviations.PROTOCOL}
    rows = deviations.rows()
    assert rows, "docs/oracle-deviations.md has no deviations table"
    for row in rows:
        assert row.check in checks, row
        assert row.decision in ("stays", "fix in the view"), row
        assert len(row.why) > 20, row
