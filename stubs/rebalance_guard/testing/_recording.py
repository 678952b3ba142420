"""The in-memory consumer state every client's harness records into (standard library only).

Partitions are ``(topic, partition)`` keys here; each client module translates them to and
from its own ``TopicPartition``. The rebalance sequence (what an eager or a cooperative
rebalance calls, in which order) is decided once, in :func:`rebalance_steps`.
"""

from __future__ import annotations

import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

Key = tuple[str, int]
TP = TypeVar("TP")
Protocol = Literal["eager", "cooperative"]
Event = Literal["on_partitions_assigned", "on_partitions_revoked", "on_partitions_lost"]


class Fenced(Exception):
    """A commit while the member has lost its partitions (the client raises its own error)."""


@dataclass
class Recording:
    """Offsets the test sets, and everything the listener did through its view.

    ``commits`` holds one ``{partition: offset}`` per commit call (a bare commit holds the
    positions of the assigned partitions); ``seeks`` every ``(partition, offset)`` a seek
    set; ``calls`` the name of every consumer method called, adapter calls included.
    """

    positions: dict[Key, int] = field(default_factory=dict)
    committed: dict[Key, int] = field(default_factory=dict)
    beginning: dict[Key, int] = field(default_factory=dict)
    end: dict[Key, int] = field(default_factory=dict)
    assigned: dict[Key, None] = field(default_factory=dict)  # ordered set
    paused: dict[Key, None] = field(default_factory=dict)
    commits: list[dict[Key, int]] = field(default_factory=list)
    seeks: list[tuple[Key, int]] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    fenced: bool = False  # during a lost callback: the partitions belong to another member

    def topics(self) -> dict[str, set[int]]:
        """Every topic the test mentioned, with its partitions."""
        known: dict[str, set[int]] = {}
        for keys in (self.assigned, self.positions, self.committed, self.beginning, self.end):
            for topic, partition in keys:
                known.setdefault(topic, set()).add(partition)
        return known

    def position(self, key: Key) -> int:
        """Where consumption resumes: set by the test or a seek, else committed, else start."""
        if key in self.positions:
            return self.positions[key]
        return self.committed.get(key, self.beginning.get(key, 0))

    def seek(self, key: Key, offset: int) -> None:
        self.positions[key] = offset
        self.seeks.append((key, offset))

    def consumed(self) -> dict[Key, int]:
        """The positions of the assigned partitions: what a bare commit commits."""
        return {k: self.position(k) for k in self.assigned}

    def commit(self, offsets: Mapping[Key, int] | None) -> dict[Key, int]:
        """Commit ``offsets``, or (bare) the positions of every assigned partition.

        A commit of nothing (bare with nothing assigned, or an empty dict) commits nothing
        and is not recorded, as in the clients; any other commit while fenced raises
        :class:`Fenced`.
        """
        done = dict(offsets) if offsets is not None else self.consumed()
        if not done:  # kafka-python commits an empty dict as a no-op too
            return done
        if self.fenced:
            raise Fenced("the member lost its partitions; another member owns them now")
        self.committed.update(done)
        self.commits.append(done)
        return done

    def add(self, keys: Iterable[Key]) -> None:
        self.assigned.update(dict.fromkeys(keys))

    def remove(self, keys: Iterable[Key]) -> None:
        for key in keys:
            self.assigned.pop(key, None)
            self.paused.pop(key, None)
            self.positions.pop(key, None)  # a later owner starts from the committed offset


def rebalance_steps(
    current: Iterable[Key], new: Iterable[Key], protocol: Protocol
) -> list[tuple[Event, list[Key]]]:
    """The callbacks one rebalance to ``new`` runs, as the clients run them.

    Eager: everything is revoked, then the whole new assignment is assigned. Cooperative:
    only the removed partitions are revoked (when there are any), then only the added ones
    are assigned (always called, possibly empty, as in Java).
    """
    old, target = list(dict.fromkeys(current)), list(dict.fromkeys(new))
    if protocol == "eager":
        return [("on_partitions_revoked", old), ("on_partitions_assigned", target)]
    removed = [k for k in old if k not in target]
    added = [k for k in target if k not in old]
    steps: list[tuple[Event, list[Key]]] = [("on_partitions_revoked", removed)] if removed else []
    return [*steps, ("on_partitions_assigned", added)]


class Errors:
    """Exceptions the runtime's dispatch kept for the next poll; the harness raises the first."""

    def __init__(self) -> None:
        self.kept: list[BaseException] = []

    def keep(self, exc: BaseException) -> None:
        self.kept.append(exc)

    def raise_first(self) -> None:
        kept, self.kept = self.kept, []
        if kept:
            raise kept[0]


class OffsetsAccess(Generic[TP]):
    """The test's side of a harness: set offsets, read what the listener did.

    ``to_key``/``from_key`` translate the client's ``TopicPartition``; every method speaks it.
    """

    recording: Recording

    def to_key(self, partition: TP) -> Key:
        raise NotImplementedError

    def from_key(self, key: Key) -> TP:
        raise NotImplementedError

    def _keys(self, partitions: Iterable[TP]) -> list[Key]:
        return [self.to_key(p) for p in partitions]

    def _set(self, table: dict[Key, int], offsets: Mapping[TP, int]) -> None:
        table.update({self.to_key(p): int(o) for p, o in offsets.items()})

    def set_positions(self, offsets: Mapping[TP, int]) -> None:
        """Positions as if the consumer had consumed up to these offsets."""
        self._set(self.recording.positions, offsets)

    def set_committed(self, offsets: Mapping[TP, int]) -> None:
        self._set(self.recording.committed, offsets)

    def set_end_offsets(self, offsets: Mapping[TP, int]) -> None:
        self._set(self.recording.end, offsets)

    def set_beginning_offsets(self, offsets: Mapping[TP, int]) -> None:
        self._set(self.recording.beginning, offsets)

    @property
    def commits(self) -> list[dict[TP, int]]:
        """One ``{partition: offset}`` per commit the listener made, in order."""
        return [{self.from_key(k): o for k, o in c.items()} for c in self.recording.commits]

    @property
    def committed(self) -> dict[TP, int]:
        """The committed offsets now (the test's and the listener's)."""
        return {self.from_key(k): o for k, o in self.recording.committed.items()}

    @property
    def seeks(self) -> list[tuple[TP, int]]:
        return [(self.from_key(k), o) for k, o in self.recording.seeks]

    @property
    def paused(self) -> set[TP]:
        return {self.from_key(k) for k in self.recording.paused}

    @property
    def assignment(self) -> set[TP]:
        return {self.from_key(k) for k in self.recording.assigned}

    def position(self, partition: TP) -> int:
        return self.recording.position(self.to_key(partition))


class Driver(OffsetsAccess[TP]):
    """What each way of driving a listener means, as steps (callback, partitions)."""

    protocol: Protocol
    errors: Errors

    def _all_or(self, partitions: Iterable[TP] | None) -> list[Key]:
        return list(self.recording.assigned) if partitions is None else self._keys(partitions)

    def _plan(self, what: str, partitions: Iterable[TP] | None) -> list[tuple[Event, list[Key]]]:
        if what == "assign":
            return [("on_partitions_assigned", self._all_or(partitions))]
        if what == "revoke":
            return [("on_partitions_revoked", self._all_or(partitions))]
        if what == "lose":
            return [("on_partitions_lost", self._all_or(partitions))]
        return rebalance_steps(self.recording.assigned, self._all_or(partitions), self.protocol)


class SyncDriver(Driver[TP]):
    """assign / revoke / lose / rebalance for clients whose callbacks are synchronous."""

    def _step(self, event: Event, keys: list[Key]) -> None:
        raise NotImplementedError

    def _steps(self, steps: list[tuple[Event, list[Key]]]) -> None:
        for event, keys in steps:
            self._step(event, keys)
        self.errors.raise_first()  # after the rebalance completed, as the next poll() would

    def assign(self, partitions: Iterable[TP]) -> None:
        """Partitions arrive: ``on_partitions_assigned`` with exactly these."""
        self._steps(self._plan("assign", partitions))

    def revoke(self, partitions: Iterable[TP] | None = None) -> None:
        """Partitions leave (default: all): ``on_partitions_revoked``, still assigned meanwhile."""
        self._steps(self._plan("revoke", partitions))

    def lose(self, partitions: Iterable[TP] | None = None) -> None:
        """The member was fenced (default: all partitions): ``on_partitions_lost``."""
        self._steps(self._plan("lose", partitions))

    def rebalance(self, new_assignment: Iterable[TP]) -> None:
        """One rebalance to ``new_assignment``: eager or cooperative, per ``protocol``."""
        self._steps(self._plan("rebalance", new_assignment))


class AsyncDriver(Driver[TP]):
    """The same steps for clients whose callbacks are awaited (aiokafka, confluent's aio)."""

    async def _step(self, event: Event, keys: list[Key]) -> None:
        raise NotImplementedError

    async def _steps(self, steps: list[tuple[Event, list[Key]]]) -> None:
        for event, keys in steps:
            await self._step(event, keys)
        self.errors.raise_first()

    async def assign(self, partitions: Iterable[TP]) -> None:
        """Partitions arrive: ``on_partitions_assigned`` with exactly these."""
        await self._steps(self._plan("assign", partitions))

    async def revoke(self, partitions: Iterable[TP] | None = None) -> None:
        """Partitions leave (default: all): ``on_partitions_revoked``, still assigned meanwhile."""
        await self._steps(self._plan("revoke", partitions))

    async def lose(self, partitions: Iterable[TP] | None = None) -> None:
        """The member was fenced (default: all partitions): ``on_partitions_lost``."""
        await self._steps(self._plan("lose", partitions))

    async def rebalance(self, new_assignment: Iterable[TP]) -> None:
        """One rebalance to ``new_assignment``: eager or cooperative, per ``protocol``."""
        await self._steps(self._plan("rebalance", new_assignment))


class PartitionLike(typing.Protocol):
    topic: str
    partition: int


class JavaStyleConsumer:
    """The in-memory consumer methods kafka-python and aiokafka spell alike (Java's names).

    ``not_assigned`` is the client's error for a partition the member does not own.
    """

    not_assigned: type[Exception] = Exception

    def __init__(self, recording: Recording) -> None:
        self.recording = recording

    def _called(self, name: str) -> Recording:
        self.recording.calls.append(name)
        return self.recording

    def _assigned(self, partition: PartitionLike) -> Key:
        key = (partition.topic, partition.partition)
        if key not in self.recording.assigned:
            raise self.not_assigned(f"No current assignment for partition {partition}")
        return key

    def _seek_to(self, name: str, table: str, partitions: tuple[PartitionLike, ...]) -> None:
        rec = self._called(name)
        offsets: dict[Key, int] = getattr(rec, table)
        for key in [self._assigned(p) for p in partitions] or list(rec.assigned):
            rec.seek(key, offsets.get(key, 0))

    def seek(self, partition: PartitionLike, offset: int) -> None:
        self._called("seek").seek(self._assigned(partition), offset)

    def pause(self, *partitions: PartitionLike) -> None:
        rec = self._called("pause")
        rec.paused.update(dict.fromkeys(self._assigned(p) for p in partitions))

    def resume(self, *partitions: PartitionLike) -> None:
        rec = self._called("resume")
        for partition in partitions:
            rec.paused.pop((partition.topic, partition.partition), None)

    def partitions_for_topic(self, topic: str) -> set[int] | None:
        return self._called("partitions_for_topic").topics().get(topic)

    def highwater(self, partition: PartitionLike) -> int | None:
        return self._called("highwater").end.get((partition.topic, partition.partition))
