"""What must hold in a trace, whoever wrote it (Java's KafkaConsumer or a Python view).

Exact partition sets differ between runs and clients by design (random member ids, the group
leader's assignor), so traces are compared by what must hold whatever the assignment:

* :data:`INVARIANTS`: each a function from a trace to its violations (empty: it holds). Java's
  traces must satisfy every one (the oracle checks the checks); a Python view's must too, or the
  difference is a row of docs/oracle-deviations.md.
* :data:`OBSERVATIONS`: facts whose value Java decides (what a fenced member's lost callback
  sees, whether leaving revokes...); a Python view's value must equal Java's for the same
  scenario and protocol, or the difference is a row of the table.

A trace is the JSON both runners write (scenarios/README.md, "Trace").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

TP = tuple[str, int]
Trace = dict[str, Any]


def tps(pairs: Any) -> set[TP]:
    return {(t, p) for t, p, *_ in pairs or ()}


#: Steps that change the group; a callback's cause is the last of them started before it.
CAUSES = ("join", "leave", "subscribe", "stall")


@dataclass(frozen=True)
class Callback:
    """One callback entry of a trace, with the step that caused it."""

    raw: dict[str, Any]
    cause: dict[str, Any]  # {"join": "B"}, or {} before any

    @property
    def member(self) -> str:
        return str(self.raw["member"])

    @property
    def kind(self) -> str:
        return str(self.raw["kind"])

    @property
    def partitions(self) -> set[TP]:
        return tps(self.raw["partitions"])

    @property
    def start(self) -> float:
        return float(self.raw["start"])

    @property
    def end(self) -> float:
        return float(self.raw["end"])

    def state(self, when: str, what: str) -> set[TP] | None:
        found = self.raw[when][what]
        return None if found is None else tps(found)

    def ops(self, name: str | None = None) -> list[dict[str, Any]]:
        return [op for op in self.raw["ops"] if name is None or op["op"] == name]

    def caused_by(self, step: str, own: bool) -> bool:
        """Caused by a ``step`` of this member (own) or of another one."""
        return step in self.cause and (self.cause[step] == self.member) == own

    def __str__(self) -> str:
        cause = ", ".join(f"after {k} {v}" for k, v in self.cause.items())
        return f"{self.member} {self.kind}{sorted(self.partitions)} at {self.start:.0f} ms {cause}"


def callbacks(trace: Trace) -> list[Callback]:
    out = []
    for raw in trace["callbacks"]:
        cause: dict[str, Any] = {}
        for step in trace["steps"]:
            what = next(iter(step["step"]))
            if what in CAUSES and step["start"] <= raw["start"]:
                arg = step["step"][what]
                cause = {what: arg["member"] if isinstance(arg, dict) else arg}
        out.append(Callback(raw, cause))
    return sorted(out, key=lambda c: c.start)


def _non_empty(trace: Trace, kind: str) -> Iterator[Callback]:
    return (c for c in callbacks(trace) if c.kind == kind and c.partitions)


# -- invariants ------------------------------------------------------------------------------


def revoked_in_assignment(trace: Trace) -> list[str]:
    """During a revocation the revoked partitions are still in assignment()."""
    return [
        f"{c}: assignment() {sorted(c.state('before', 'assignment') or ())}"
        for c in _non_empty(trace, "revoked")
        if not c.partitions <= (c.state("before", "assignment") or set())
    ]


def _op_failures(trace: Trace, kind: str, op: str) -> list[str]:
    return [
        f"{c}: {op}({o['partitions']}) -> {o.get('error') or o.get('value')}"
        for c in _non_empty(trace, kind)
        for o in c.ops(op)
        if not o["ok"] or not isinstance(o.get("value"), int)
    ]


def revoked_positions_readable(trace: Trace) -> list[str]:
    """During a revocation position() answers for every revoked partition."""
    return _op_failures(trace, "revoked", "position")


def assigned_positions_readable(trace: Trace) -> list[str]:
    """During an assignment position() answers for every assigned partition (Java fetches the
    committed offset or applies auto.offset.reset when it has none yet)."""
    return _op_failures(trace, "assigned", "position")


def assigned_in_assignment(trace: Trace) -> list[str]:
    """During an assignment the assigned partitions are in assignment()."""
    return [
        f"{c}: assignment() {sorted(c.state('before', 'assignment') or ())}"
        for c in _non_empty(trace, "assigned")
        if not c.partitions <= (c.state("before", "assignment") or set())
    ]


def assigned_are_new(trace: Trace) -> list[str]:
    """An assignment passes only partitions the member does not own yet (by its own history:
    assigned adds, revoked and lost remove): eager re-passes everything after revoking
    everything, cooperative and KIP-848 pass the delta."""
    owned: dict[str, set[TP]] = defaultdict(set)
    bad = []
    for c in callbacks(trace):
        if c.kind == "assigned":
            if c.partitions & owned[c.member]:
                bad.append(f"{c}: already owned {sorted(c.partitions & owned[c.member])}")
            owned[c.member] |= c.partitions
        else:
            owned[c.member] -= c.partitions
    return bad


def eager_revokes_everything(trace: Trace) -> list[str]:
    """Eager: a revocation passes the whole assignment."""
    if trace["protocol"] != "eager":
        return []
    return [
        f"{c}: assignment() {sorted(c.state('before', 'assignment') or ())}"
        for c in _non_empty(trace, "revoked")
        if c.partitions != c.state("before", "assignment")
    ]


def incremental_revokes_moved_only(trace: Trace) -> list[str]:
    """Cooperative and KIP-848: when a member joins, the others revoke only the partitions
    that move to it and keep the rest."""
    if trace["protocol"] == "eager":
        return []
    return [
        f"{c}: revoked its whole assignment when another member joined"
        for c in _non_empty(trace, "revoked")
        if c.caused_by("join", own=False) and c.partitions == c.state("before", "assignment")
    ]


def incremental_subscription_change_revokes_dropped(trace: Trace) -> list[str]:
    """Cooperative and KIP-848 (KIP-70): a member that drops topics from its subscription gets
    exactly its partitions of those topics revoked, and keeps the rest."""
    if trace["protocol"] == "eager":
        return []
    subscribed = {s["step"]["subscribe"]["member"]: s["step"]["subscribe"]["topics"]
                  for s in trace["steps"] if "subscribe" in s["step"]}  # fmt: skip
    bad = []
    for c in _non_empty(trace, "revoked"):
        if c.caused_by("subscribe", own=True):
            kept = {trace["topics"][alias] for alias in subscribed[c.member]}
            dropped = {tp for tp in c.state("before", "assignment") or () if tp[0] not in kept}
            if c.partitions != dropped:
                bad.append(f"{c}: the dropped topics' partitions were {sorted(dropped)}")
    return bad


def single_owner(trace: Trace) -> list[str]:
    """No partition is owned by two members at once: a member owns a partition from the start
    of its assigned callback to the end of the revoked one (or to its departure when its client
    revokes nothing on close). Ownership that ends in a lost callback is excluded: that member
    was fenced before the callback, which is the point of 'lost'."""
    intervals: list[tuple[TP, str, float, float]] = []
    since: dict[tuple[str, TP], float] = {}
    for c in callbacks(trace):
        for tp in c.partitions:
            key = (c.member, tp)
            if c.kind == "assigned":
                since[key] = c.start
            elif key in since:
                began = since.pop(key)
                if c.kind == "revoked":
                    intervals.append((tp, c.member, began, c.end))
    left = {s["step"]["leave"]: s.get("end", float("inf"))
            for s in trace["steps"] if "leave" in s["step"]}  # fmt: skip
    for (member, tp), began in since.items():
        intervals.append((tp, member, began, left.get(member, float("inf"))))
    bad = []
    for i, (tp, m, a, b) in enumerate(intervals):
        for tp2, m2, a2, b2 in intervals[i + 1 :]:
            if tp == tp2 and m != m2 and a < b2 and a2 < b:
                bad.append(f"{tp} owned by {m} [{a:.0f}, {b:.0f}] and {m2} [{a2:.0f}, {b2:.0f}]")
    return bad


def _offsets(op: dict[str, Any]) -> dict[TP, int]:
    return {(t, p): v for t, p, v in op["value"]}


def revoke_commit_lands(trace: Trace) -> list[str]:
    """After a commit in a revocation, committed() answers the committed offsets: the revoking
    member's position() for a bare commit(), the offsets passed for an explicit one."""
    bad = []
    for c in _non_empty(trace, "revoked"):
        committed = {tps(o["partitions"]).pop(): o.get("value") for o in c.ops("committed")}
        positions = {tps(o["partitions"]).pop(): o.get("value") for o in c.ops("position")}
        for o in c.ops():
            if o["op"] == "commit" and o["ok"]:  # unreadable positions: another invariant
                wanted = {tp: positions[tp] for tp in tps(o["partitions"])
                          if isinstance(positions.get(tp), int)}  # fmt: skip
            elif o["op"] == "commit_processed" and o["ok"]:
                wanted = _offsets(o)
            else:
                continue
            for tp, offset in wanted.items():
                if tp in committed and committed[tp] != offset:
                    bad.append(f"{c}: committed {tp} = {committed[tp]}, expected {offset}")
    return bad


def assigned_start_unpaused(trace: Trace) -> list[str]:
    """A newly assigned partition is not paused when its assigned callback starts."""
    return [
        f"{c}: paused() {sorted(paused)}"
        for c in _non_empty(trace, "assigned")
        if (paused := c.state("before", "paused")) is not None and c.partitions & paused
    ]


def pause_kept_while_owned(trace: Trace) -> list[str]:
    """At each settled point a member's paused() is exactly what it paused in a callback and
    kept owning since (a revocation or loss drops the pause, a resume step clears it; eager
    re-assigns revoked partitions unpaused)."""
    events: list[tuple[float, int, str, Any]] = []
    for c in callbacks(trace):
        if c.kind in ("revoked", "lost"):
            events.append((c.start, 0, c.member, ("drop", c.partitions)))
        for o in c.ops("pause"):
            if o["ok"]:
                events.append((c.end, 1, c.member, ("add", tps(o["partitions"]))))
    for step in trace["steps"]:
        if "resume" in step["step"]:
            events.append((step.get("end", step["start"]), 2, step["step"]["resume"], ("clear",)))
    for point in trace["checkpoints"]:
        events.append((point["at"], 3, "", ("check", point["members"])))
    paused: dict[str, set[TP]] = defaultdict(set)
    bad = []
    for at, _, member, event in sorted(events, key=lambda e: (e[0], e[1])):
        if event[0] == "drop":
            paused[member] -= event[1]
        elif event[0] == "add":
            paused[member] |= event[1]
        elif event[0] == "clear":
            paused[member] = set()
        else:
            for name, state in event[1].items():
                if state["paused"] is None:
                    continue
                expected = paused[name] & tps(state["assignment"])
                if tps(state["paused"]) != expected:
                    bad.append(f"{name} at {at:.0f} ms: paused() {sorted(tps(state['paused']))}"
                               f", expected {sorted(expected)}")  # fmt: skip
    return bad


def seek_then_position(trace: Trace) -> list[str]:
    """After seek(tp, n) in a callback, position(tp) in the same callback answers n."""
    bad = []
    for c in callbacks(trace):
        sought: dict[TP, int] = {}
        for o in c.ops():
            tp = next(iter(tps(o["partitions"])), None)
            if o["op"] == "seek" and o["ok"] and tp is not None:
                sought[tp] = o["value"]
            elif o["op"] == "position" and tp in sought and o.get("value") != sought[tp]:
                bad.append(f"{c}: position({tp}) = {o.get('value')} after seek to {sought[tp]}")
    return bad


def processed_offsets(trace: Trace) -> dict[TP, int]:
    """For each partition, the offset after the last record any member processed."""
    done: dict[TP, int] = {}
    for records in trace["records"].values():
        for t, p, offset, _ in records:
            done[(t, p)] = max(done.get((t, p), 0), offset + 1)
    return done


def final_committed_is_processed(trace: Trace) -> list[str]:
    """At the end the group's committed offsets equal what was processed."""
    done = processed_offsets(trace)
    return [
        f"{(t, p)}: committed {offset}, processed up to {done.get((t, p))}"
        for t, p, offset in trace["final_committed"]
        if offset != done.get((t, p))
    ]


def nothing_lost(trace: Trace) -> list[str]:
    """Every produced message was processed by some member."""
    seen: dict[str, set[int]] = defaultdict(set)
    for records in trace["records"].values():
        for t, _, _, value in records:
            seen[t].add(value)
    return [
        f"{topic}: {count - len(seen[topic] & set(range(count)))} of {count} never processed"
        for topic, count in trace["produced"].items()
        if not set(range(count)) <= seen[topic]
    ]


def _stalls(trace: Trace) -> Iterator[tuple[str, float]]:
    for step in trace["steps"]:
        if "stall" in step["step"]:
            yield step["step"]["stall"], step["start"]


def fenced_member_gets_lost(trace: Trace) -> list[str]:
    """A member fenced for not polling gets its partitions in on_partitions_lost, not revoked."""
    bad = []
    for member, since in _stalls(trace):
        after = (c for c in callbacks(trace) if c.member == member and c.start >= since)
        first = next((c for c in after if c.partitions), None)
        if first is None or first.kind != "lost":
            bad.append(f"{member} after its stall: first callback {first}")
    return bad


INVARIANTS: dict[str, Callable[[Trace], list[str]]] = {
    f.__name__: f
    for f in (
        revoked_in_assignment, revoked_positions_readable, assigned_in_assignment,
        assigned_positions_readable, assigned_are_new, eager_revokes_everything,
        incremental_revokes_moved_only, incremental_subscription_change_revokes_dropped,
        single_owner, revoke_commit_lands,
        assigned_start_unpaused, pause_kept_while_owned, seek_then_position,
        final_committed_is_processed, nothing_lost, fenced_member_gets_lost,
    )
}  # fmt: skip


# -- observations ----------------------------------------------------------------------------


def _first_lost(trace: Trace) -> Callback | None:
    return next(_non_empty(trace, "lost"), None)


def lost_partitions_in_assignment(trace: Trace) -> bool | None:
    """During on_partitions_lost, are the lost partitions still in assignment()?"""
    lost = _first_lost(trace)
    if lost is None:
        return None
    return bool(lost.partitions & (lost.state("before", "assignment") or set()))


def _outcome(ops: list[dict[str, Any]]) -> str | None:
    if not ops:
        return None
    return "ok" if all(o["ok"] for o in ops) else "fails"


def lost_position(trace: Trace) -> str | None:
    """position() of a lost partition during on_partitions_lost: "readable" (an offset), "no
    answer" (returns none) or "fails" (raises)."""
    lost = _first_lost(trace)
    if lost is None or not lost.ops("position"):
        return None
    answers = lost.ops("position")
    if not all(o["ok"] for o in answers):
        return "fails"
    return "readable" if all(isinstance(o.get("value"), int) for o in answers) else "no answer"


def lost_bare_commit(trace: Trace) -> str | None:
    """A bare commit() during on_partitions_lost: ok or fails."""
    lost = _first_lost(trace)
    return None if lost is None else _outcome(lost.ops("commit"))


def revoke_on_leave(trace: Trace) -> bool | None:
    """Does a graceful departure (close) run the revoked callback with the member's partitions?"""
    leaves = [c for c in _non_empty(trace, "revoked") if c.caused_by("leave", own=True)]
    departures = {s["step"]["leave"] for s in trace["steps"] if "leave" in s["step"]}
    if not departures:
        return None
    return {c.member for c in leaves} == departures


OBSERVATIONS: dict[str, Callable[[Trace], Any]] = {
    f.__name__: f
    for f in (lost_partitions_in_assignment, lost_position, lost_bare_commit, revoke_on_leave)
}


def verdicts(trace: Trace) -> dict[str, Any]:
    """Every check's value: "holds" or "violated" for invariants, the fact for observations."""
    out: dict[str, Any] = {}
    for name, check in INVARIANTS.items():
        out[name] = "violated" if check(trace) else "holds"
    for name, observe in OBSERVATIONS.items():
        out[name] = observe(trace)
    return out
