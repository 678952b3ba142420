"""Run a scenario (tests/oracle/scenarios/*.json) on a Python view and write its trace.

The Java side (java/oracle/, ``Run.java`` and ``Script.java``) reads the same scenario files and
writes the same trace; :func:`instance` makes the per-run values both sides get (broker, group,
real topic names, protocol, timings). Members are the conformance drivers' (tests/conformance/
driver_<client>.py): each member its own thread, the callbacks run a script built here from the
scenario's callback actions through the client's rebalance_guard view. scenarios/README.md
describes the format, the steps and the trace.
"""

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conformance.driver import TP, Driver, Member, NotOffered, Ops, produce
from tests.integration.broker import CONFLUENT_GROUP_TIMEOUTS, Broker

SCENARIOS = Path(__file__).resolve().parent / "scenarios"

#: The waits of both runners (milliseconds), written into every instance; the group timeouts
#: are the Python drivers' own (tests/integration/broker.py), so both sides fence alike.
TIMING = {
    **CONFLUENT_GROUP_TIMEOUTS,
    "stall.extra.ms": 4_000,  # a stall lasts max.poll.interval.ms plus this
    "settle.quiet.ms": 1_000,  # settled: ownership complete and no callback for this long
    "step.timeout.ms": 60_000,
}

Trace = dict[str, Any]

#: The steps and callback actions this runner knows: scenarios/schema.json lists the same, and
#: so does the Java runner (``Oracle --format``); tests/oracle/test_format.py holds all three equal.
STEPS = ("produce", "join", "leave", "subscribe", "stall", "resume", "settle", "drain")
ACTIONS = ("position", "committed", "commit", "commit_processed", "seek", "pause")


def scenario(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SCENARIOS / f"{name}.json").read_text())
    return loaded


def scenario_names() -> list[str]:
    return sorted(p.stem for p in SCENARIOS.glob("*.json") if p.stem != "schema")


def instance(broker: Broker, name: str, protocol: str) -> dict[str, Any]:
    """One run of scenario ``name``: fresh topics and group on ``broker``."""
    spec = scenario(name)
    topics = {alias: broker.create_topic(partitions=n) for alias, n in spec["topics"].items()}
    return {
        "scenario": spec,
        "protocol": protocol,
        "bootstrap": broker.bootstrap,
        "group": broker.group(),
        "topics": topics,
        "timeouts": TIMING,
    }


def _pairs(partitions: Any) -> list[list[Any]]:
    return [[t, p] for t, p in sorted(partitions)]


class _Script:
    """One member's callback script, from its scenario entry (Script.java's twin)."""

    def __init__(self, run: PythonRun, name: str, actions: dict[str, list[Any]]) -> None:
        self.run, self.name, self.actions = run, name, actions
        self.calls: dict[str, int] = {}

    async def __call__(self, kind: str, partitions: set[TP], ops: Ops) -> None:
        entry: dict[str, Any] = {
            "member": self.name,
            "kind": kind,
            "start": self.run.now(),
            "partitions": _pairs(partitions),
            "before": await _state(ops),
        }
        done: list[dict[str, Any]] = []
        entry["ops"] = done
        if partitions:
            self.calls[kind] = call = self.calls.get(kind, 0) + 1
            for action in self.actions.get(kind, []):
                action = {"op": action} if isinstance(action, str) else action
                repeated = call > 1 and action.get("first")
                if repeated or (self._member().closing and not action.get("closing", True)):
                    continue
                chosen = sorted(
                    tp for tp in partitions
                    if "partitions" not in action or tp[1] in action["partitions"]
                )  # fmt: skip
                await self._perform(action, chosen, ops, done)
        entry["after"] = await _state(ops)
        entry["end"] = self.run.now()
        self.run.callbacks.append(entry)

    def _member(self) -> Member:
        """This script's member (its first callback may run before driver.member() returns)."""
        deadline = time.monotonic() + 30
        while self.name not in self.run.members and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.run.members[self.name]

    async def _perform(self, action: dict[str, Any], tps: list[TP], ops: Ops,
                       done: list[dict[str, Any]]) -> None:  # fmt: skip
        op = action["op"]
        if op == "position":
            for tp in tps:
                await _attempt(done, op, [tp], ops.position(tp))
        elif op == "committed":
            for tp in tps:
                await _attempt(done, op, [tp], ops.committed(tp))
        elif op == "seek":
            for tp in tps:
                await _attempt(done, op, [tp], _returning(ops.seek(tp, action["offset"]),
                                                         action["offset"]))  # fmt: skip
        elif op == "commit":
            await _attempt(done, op, tps, ops.commit())
        elif op == "commit_processed":
            processed = self._member().next_offsets
            offsets = {tp: processed[tp] for tp in tps if tp in processed}
            value = [[t, p, offsets[(t, p)]] for t, p in sorted(offsets)]
            await _attempt(done, op, tps, _returning(ops.commit_offsets(offsets), value))
        elif op == "pause":
            await _attempt(done, op, tps, ops.pause(tps))
        else:
            raise ValueError(f"unknown callback action: {op}")


async def _returning(call: Any, value: Any) -> Any:
    await call
    return value


async def _attempt(done: list[dict[str, Any]], op: str, tps: list[TP], call: Any) -> None:
    entry: dict[str, Any] = {"op": op, "partitions": _pairs(tps)}
    try:
        entry["value"] = await call
        entry["ok"] = True
    except Exception as exc:
        entry["ok"] = False
        entry["error"] = f"{type(exc).__name__}: {exc}"
    done.append(entry)


async def _state(ops: Ops) -> dict[str, Any]:
    try:
        paused: list[list[Any]] | None = _pairs(await ops.paused())
    except NotOffered:
        paused = None
    return {"assignment": _pairs(await ops.assignment()), "paused": paused}


def _paused(member: Member) -> list[list[Any]] | None:
    try:
        return _pairs(member.paused())
    except NotOffered:
        return None


class PythonRun:
    """One instance run step by step on one driver (Run.java's twin)."""

    def __init__(self, driver: Driver, spec: dict[str, Any]) -> None:
        self.driver, self.spec = driver, spec
        self.scenario: dict[str, Any] = spec["scenario"]
        self.topics: dict[str, str] = spec["topics"]
        self.timing: dict[str, int] = spec["timeouts"]
        self.sizes = {self.topics[a]: n for a, n in self.scenario["topics"].items()}
        self.produced = dict.fromkeys(self.sizes, 0)
        self.members: dict[str, Member] = {}
        self.active: dict[str, Member] = {}
        self.subscriptions: dict[str, list[str]] = {}
        self.callbacks: list[dict[str, Any]] = []
        self.checkpoints: list[dict[str, Any]] = []
        self.steps: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.began = time.monotonic()

    def now(self) -> int:
        return int((time.monotonic() - self.began) * 1000)

    def execute(self) -> Trace:
        try:
            for step in self.scenario["steps"]:
                record = {"step": step, "start": self.now()}
                self.steps.append(record)
                self._perform(step)
                record["end"] = self.now()
        except Exception as exc:
            self.errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            for member in list(self.active.values()):
                try:
                    member.close()
                except Exception as exc:
                    self.errors.append(f"{member.name} close: {exc!r}")
        return self._trace()

    def _perform(self, step: dict[str, Any]) -> None:
        ((what, arg),) = step.items()
        if what == "produce":
            topic = self.topics[arg["topic"]]
            first = self.produced[topic]
            produce(self.spec["bootstrap"], topic, range(first, first + arg["count"]),
                    self.sizes[topic])  # fmt: skip
            self.produced[topic] = first + arg["count"]
        elif what == "join":
            member_spec = self.scenario["members"][arg]
            self.subscriptions[arg] = [self.topics[a] for a in member_spec["topics"]]
            script = _Script(self, arg, member_spec["callbacks"])
            self.members[arg] = self.active[arg] = self.driver.member(
                self.spec["bootstrap"], self.spec["group"], self.subscriptions[arg],
                self.spec["protocol"], script, arg,
            )  # fmt: skip
        elif what == "leave":
            self.active.pop(arg).close()
        elif what == "subscribe":
            self.subscriptions[arg["member"]] = [self.topics[a] for a in arg["topics"]]
            self.active[arg["member"]].subscribe(self.subscriptions[arg["member"]])
        elif what == "resume":
            member = self.active[arg]
            member.resume(member.assignment())
        elif what == "settle":
            self._settle()
        elif what == "drain":
            self._wait("every produced message processed", self._drained)
        elif what == "stall":
            self._stall(self.active[arg])
        else:
            raise ValueError(f"unknown step {what}")

    def _owned(self, owners: list[Member], topics: set[str]) -> bool:
        seen: list[TP] = [tp for m in owners for tp in m.assignment()]
        expected = {(t, p) for t in topics for p in range(self.sizes[t])}
        return len(seen) == len(set(seen)) and set(seen) == expected

    def _subscribed(self, names: Any) -> set[str]:
        return {t for name in names for t in self.subscriptions[name]}

    def _settle(self) -> None:
        quiet = self.timing["settle.quiet.ms"]
        since: list[int | None] = [None]

        def settled() -> bool:
            now = self.now()
            if not self._owned(list(self.active.values()), self._subscribed(self.active)):
                since[0] = None
                return False
            if since[0] is None:
                since[0] = now
            last = max((c["end"] for c in self.callbacks), default=-1)
            return now - since[0] >= quiet and now - last >= quiet

        self._wait("the group to settle", settled)
        self.checkpoints.append({
            "at": self.now(),
            "members": {
                name: {"assignment": _pairs(m.assignment()), "paused": _paused(m)}
                for name, m in self.active.items()
            },
        })  # fmt: skip

    def _drained(self) -> bool:
        done: dict[TP, int] = {}
        for member in self.members.values():
            for tp, offset in member.next_offsets.items():
                done[tp] = max(done.get(tp, 0), offset)
        return all(
            done.get((topic, p), 0) >= count // self.sizes[topic]
            + (p < count % self.sizes[topic])
            for topic, count in self.produced.items()
            for p in range(self.sizes[topic])
        )  # fmt: skip

    def _stall(self, victim: Member) -> None:
        others = [m for m in self.active.values() if m is not victim]
        theirs = self._subscribed(m.name for m in others)
        sleep = (self.timing["max.poll.interval.ms"] + self.timing["stall.extra.ms"]) / 1000

        def stall() -> None:
            time.sleep(sleep)
            self._wait("the others to own every partition", lambda: self._owned(others, theirs),
                       others)  # fmt: skip

        victim.call(stall, timeout=sleep + self.timing["step.timeout.ms"] / 1000 + 30)

    def _wait(self, what: str, condition: Callable[[], bool],
              owners: list[Member] | None = None) -> None:  # fmt: skip
        """Until ``condition``; on timeout the error names what ``owners`` (default: every
        active member) own."""
        limit = self.timing["step.timeout.ms"]
        deadline = self.now() + limit
        while not condition():
            for member in self.active.values():
                if member.crash is not None:
                    raise RuntimeError(f"{member.name} crashed: {member.crash!r}")
            if self.now() > deadline:
                shown = self.active.values() if owners is None else owners
                owned = {m.name: sorted(m.assignment()) for m in shown}
                raise TimeoutError(f"timed out after {limit} ms waiting for {what}; owned: {owned}")
            time.sleep(0.05)

    def _trace(self) -> Trace:
        for member in self.members.values():
            if member.crash is not None:
                self.errors.append(f"{member.name} crashed: {member.crash!r}")
        return {
            "runner": "python",
            "client": self.driver.name,
            "client_version": _client_version(self.driver.name),
            "scenario": self.scenario["name"],
            "protocol": self.spec["protocol"],
            "group": self.spec["group"],
            "topics": self.topics,
            "produced": self.produced,
            "records": {
                name: [[*r.tp, r.offset, r.value] for r in m.records]
                for name, m in self.members.items()
            },
            "poll_errors": {
                name: [f"{type(e).__name__}: {e}" for e in m.poll_errors]
                for name, m in self.members.items()
            },
            "callbacks": sorted(self.callbacks, key=lambda c: c["start"]),
            "checkpoints": self.checkpoints,
            "steps": self.steps,
            "errors": self.errors,
        }


def _client_version(client: str) -> str:
    module = {"kafka_python": "kafka", "aiokafka": "aiokafka"}.get(client, "confluent_kafka")
    imported = importlib.import_module(module)
    version = getattr(imported, "__version__", None)
    if version is None:  # confluent_kafka.version() -> (text, int)
        version = imported.version()[0]
    return f"{module} {version}"


def run_python(driver: Driver, spec: dict[str, Any]) -> Trace:
    """Run one instance on ``driver``; the trace, with the group's final committed offsets."""
    trace = PythonRun(driver, spec).execute()
    trace["final_committed"] = group_committed(spec)
    return trace


def group_committed(spec: dict[str, Any]) -> list[list[Any]]:
    """The group's committed offsets of every partition of the instance's topics, asked of the
    broker after the run (one function for both sides' traces)."""
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
    from confluent_kafka.admin import AdminClient

    sizes = spec["scenario"]["topics"]
    wanted = [TopicPartition(spec["topics"][a], p) for a, n in sizes.items() for p in range(n)]
    admin = AdminClient({"bootstrap.servers": spec["bootstrap"]})
    request = [ConsumerGroupTopicPartitions(spec["group"], wanted)]
    found = admin.list_consumer_group_offsets(request)[spec["group"]].result(timeout=30)
    return sorted(
        [tp.topic, tp.partition, tp.offset if tp.offset >= 0 else None]
        for tp in found.topic_partitions
    )
