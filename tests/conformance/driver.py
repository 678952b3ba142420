"""The per-client driver interface of the conformance suite, and what every driver shares.

A driver (one module per client: ``driver_<client>.py``) starts consumer group members of
its client on the real broker and runs a client-agnostic *script* in every rebalance
callback. Scripts are ``async def`` and talk to the callback's view through :class:`Ops`,
whose methods are async for every client (a sync client's driver just calls the view), so
one script runs unchanged on sync and async clients. Partitions are ``(topic, partition)``
tuples everywhere in the suite.

To add a client: write a module with a ``DRIVER`` object satisfying :class:`Driver` and add
its name to ``DRIVERS`` in ``conftest.py``.
"""

from __future__ import annotations

import asyncio
import inspect
import queue
import threading
import time
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

TP = tuple[str, int]

#: The group protocols the suite runs: classic eager, classic cooperative (incremental,
#: KIP-429) and KIP-848's consumer protocol (incremental, the broker assigns).
PROTOCOLS = ("eager", "cooperative", "consumer")
#: Where callbacks get only the partitions that move.
INCREMENTAL = ("cooperative", "consumer")
#: Why a classic-only client skips the consumer protocol.
NO_CONSUMER_PROTOCOL = (
    "{client} does not speak KIP-848's consumer group protocol (group.protocol=consumer is "
    "implemented by Apache Kafka's Java client and librdkafka >= 2.12 only)"
)


class Ops(Protocol):
    """KIP-1306's permitted operations on one callback's view, in one vocabulary.

    ``raw`` is the client's view itself. A client that lacks an operation raises
    :class:`NotOffered` from it, naming the reason.
    """

    raw: Any

    async def commit(self) -> None: ...  # bare and synchronous: the consumed positions
    async def commit_offsets(self, offsets: dict[TP, int]) -> None: ...
    async def commit_async(self) -> None: ...  # started, not awaited for completion
    async def committed(self, tp: TP) -> int | None: ...
    async def position(self, tp: TP) -> int | None: ...
    async def seek(self, tp: TP, offset: int) -> None: ...
    async def seek_to_beginning(self, tps: Iterable[TP]) -> None: ...
    async def seek_to_end(self, tps: Iterable[TP]) -> None: ...
    async def assignment(self) -> set[TP]: ...
    async def pause(self, tps: Iterable[TP]) -> None: ...
    async def resume(self, tps: Iterable[TP]) -> None: ...
    async def paused(self) -> set[TP]: ...
    async def beginning_offsets(self, tps: Iterable[TP]) -> dict[TP, int]: ...
    async def end_offsets(self, tps: Iterable[TP]) -> dict[TP, int]: ...
    async def offsets_for_times(self, times: dict[TP, int]) -> dict[TP, int | None]: ...
    async def partitions_for_topic(self, topic: str) -> set[int]: ...
    async def group_metadata(self) -> object: ...


def keys(partitions: Iterable[Any]) -> set[TP]:
    """``(topic, partition)`` of any client's TopicPartition objects."""
    return {(tp.topic, tp.partition) for tp in partitions}


class NotOffered(Exception):
    """The client has no such operation (the message says why)."""


#: A script: ``(kind, partitions, ops)`` with kind "assigned", "revoked" or "lost".
Script = Callable[[str, set[TP], Ops], Coroutine[Any, Any, None]]


async def no_script(kind: str, partitions: set[TP], ops: Ops) -> None:
    return None


@dataclass
class Event:
    kind: str
    partitions: frozenset[TP]
    at: float = field(default_factory=time.monotonic)


@dataclass
class Record:
    tp: TP
    offset: int
    value: int


class Member:
    """One consumer polled by its own thread; the driver fills in :meth:`_poll_once` & co.

    Calls that touch the consumer (``assignment()``, ``subscribe()``...) run on the polling
    thread between two polls, through :meth:`call`.
    """

    def __init__(
        self, bootstrap: str, group: str, topics: list[str], protocol: str, script: Script,
        name: str,
    ) -> None:  # fmt: skip
        self.bootstrap, self.group, self.topics = bootstrap, group, topics
        self.protocol, self.script, self.name = protocol, script, name
        self.consumer: Any = None
        self.events: list[Event] = []
        self.records: list[Record] = []
        self.next_offsets: dict[TP, int] = {}  # after the last processed record
        self.poll_errors: list[BaseException] = []
        self.crash: BaseException | None = None
        self._calls: queue.Queue[tuple[Callable[[], Any], queue.Queue[Any]]] = queue.Queue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"member-{name}", daemon=True)

    # -- for drivers -------------------------------------------------------------------
    def _open(self) -> None:
        """Create and subscribe the consumer (on the polling thread)."""
        raise NotImplementedError

    def _poll_once(self) -> list[Record]:
        """One poll of about 100 ms: the records it returned (callbacks run inside it)."""
        raise NotImplementedError

    def _close(self) -> None:
        raise NotImplementedError

    #: The client's TopicPartition type (the defaults below fit kafka-python and aiokafka).
    partition_type: Callable[[str, int], Any]

    def _assignment(self) -> set[TP]:
        return keys(self.consumer.assignment())

    def _paused(self) -> set[TP]:
        return keys(self.consumer.paused())

    def _resume(self, tps: set[TP]) -> None:
        self.consumer.resume(*(self.partition_type(*tp) for tp in tps))

    def _subscribe(self, topics: list[str]) -> None:
        self.consumer.subscribe(topics)

    def _run_sync(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` on the polling thread (async drivers run coroutines to completion)."""
        return fn()

    # -- for tests -----------------------------------------------------------------------
    @property
    def closing(self) -> bool:
        """close() was called: callbacks now run inside the client's close()."""
        return self._stop.is_set()

    def start(self) -> Member:
        self._thread.start()
        return self

    def event(self, kind: str, partitions: Iterable[TP]) -> None:
        self.events.append(Event(kind, frozenset(partitions)))

    def _run(self) -> None:
        try:
            self._open()
            while not self._stop.is_set():
                while not self._calls.empty():
                    fn, reply = self._calls.get()
                    try:
                        reply.put((True, self._run_sync(fn)))
                    except BaseException as exc:
                        reply.put((False, exc))
                try:
                    records = self._poll_once()
                except Exception as exc:
                    self.poll_errors.append(exc)
                    continue
                for record in records:
                    self.records.append(record)
                    self.next_offsets[record.tp] = record.offset + 1
        except BaseException as exc:
            self.crash = exc
        finally:
            try:
                self._close()
            except Exception as exc:
                if self.crash is None:
                    self.crash = exc

    def call(self, fn: Callable[[], Any], timeout: float = 60) -> Any:
        if self.crash is not None:
            raise self.crash
        reply: queue.Queue[tuple[bool, Any]] = queue.Queue()
        self._calls.put((fn, reply))
        ok, value = reply.get(timeout=timeout)
        if not ok:
            raise value
        return value

    def assignment(self) -> set[TP]:
        return set(self.call(self._assignment))

    def paused(self) -> set[TP]:
        return set(self.call(self._paused))

    def resume(self, tps: set[TP]) -> None:
        self.call(lambda: self._resume(tps))

    def subscribe(self, topics: list[str]) -> set[TP]:
        """Re-subscribe; returns the assignment right after, before any further poll."""

        def change() -> set[TP]:
            self._subscribe(topics)
            return self._assignment()

        return set(self.call(change))

    def close(self) -> None:
        """Stop polling and close the consumer (gracefully: it leaves the group)."""
        self._stop.set()
        self._thread.join(timeout=90)
        assert not self._thread.is_alive(), f"{self.name} did not close within 90 s"
        if self.crash is not None:
            raise self.crash


class LoopMember(Member):
    """A member of an asyncio client: its own event loop on its polling thread.

    Between polls the loop is idle and the member's calls run their coroutines to completion
    on it (:meth:`_settle`); the client runs its callbacks on it while a poll is awaited.
    """

    loop: asyncio.AbstractEventLoop

    async def _start(self) -> None:
        """Create, subscribe (and start) the consumer, on the running loop."""
        raise NotImplementedError

    def _shutdown(self) -> Any:
        """The consumer's close (or stop) coroutine (awaitable)."""
        raise NotImplementedError

    def _open(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.loop.run_until_complete(self._start())

    def _settle(self, result: Any) -> Any:
        """``result``, or what it resolves to if it is awaitable."""
        if inspect.isawaitable(result):
            return self.loop.run_until_complete(result)
        return result

    def _run_sync(self, fn: Callable[[], Any]) -> Any:
        return self._settle(fn())

    def _close(self) -> None:
        if not hasattr(self, "loop"):
            return
        try:
            if self.consumer is not None:
                self._settle(self._shutdown())
        finally:
            self.loop.close()


class SyncScriptListener:
    """A KIP-1306 listener for a synchronous client: runs the script to completion per call.

    kafka-python calls it on rebalance_guard's worker thread (3.x) or the polling thread
    (2.x), confluent on the polling thread: no event loop runs there, so ``asyncio.run``.
    """

    def __init__(self, member: Member, ops: Callable[[Any], Ops]) -> None:
        self.member, self.ops = member, ops

    def _run(self, kind: str, partitions: Any, view: Any) -> None:
        found = keys(partitions)
        self.member.event(kind, found)
        asyncio.run(self.member.script(kind, found, self.ops(view)))

    def on_partitions_assigned(self, partitions: Any, consumer: Any, /) -> None:
        self._run("assigned", partitions, consumer)

    def on_partitions_revoked(self, partitions: Any, consumer: Any, /) -> None:
        self._run("revoked", partitions, consumer)

    def on_partitions_lost(self, partitions: Any, consumer: Any, /) -> None:
        self._run("lost", partitions, consumer)


class AsyncScriptListener:
    """The methods of a KIP-1306 listener for an asyncio client: ``async def``, awaiting the
    script. A driver mixes it into its client module's ``RebalanceListener``."""

    def __init__(self, member: Member, ops: Callable[[Any], Ops]) -> None:
        self.member, self.ops = member, ops

    async def _run(self, kind: str, partitions: Any, view: Any) -> None:
        found = keys(partitions)
        self.member.event(kind, found)
        await self.member.script(kind, found, self.ops(view))

    async def on_partitions_assigned(self, partitions: Any, consumer: Any, /) -> None:
        await self._run("assigned", partitions, consumer)

    async def on_partitions_revoked(self, partitions: Any, consumer: Any, /) -> None:
        await self._run("revoked", partitions, consumer)

    async def on_partitions_lost(self, partitions: Any, consumer: Any, /) -> None:
        await self._run("lost", partitions, consumer)


class ThreadedDriver:
    """A driver whose members are ``member_class`` instances, each on its own thread."""

    name: str
    member_class: type[Member]

    def skip_reason(self, protocol: str) -> str | None:
        return None

    def member(
        self, bootstrap: str, group: str, topics: list[str], protocol: str, script: Script,
        name: str,
    ) -> Member:  # fmt: skip
        return self.member_class(bootstrap, group, topics, protocol, script, name).start()


class Driver(Protocol):
    """What the suite needs from a client."""

    name: str

    def skip_reason(self, protocol: str) -> str | None:
        """Why this client cannot run ``protocol`` (None: it can)."""
        ...

    def member(
        self,
        bootstrap: str,
        group: str,
        topics: list[str],
        protocol: str,
        script: Script,
        name: str,
    ) -> Member:
        """A started member of ``group`` subscribed to ``topics`` running ``script``."""
        ...


def produce(bootstrap: str, topic: str, values: Iterable[int], partitions: int) -> None:
    """Write each value as a message, value ``v`` to partition ``v % partitions``."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for value in values:
        producer.produce(topic, str(value).encode(), partition=value % partitions)
    assert producer.flush(60) == 0, "producer could not deliver within 60 s"


def wait_until(condition: Callable[[], bool], what: str, members: Iterable[Member] = (),
               timeout: float = 60) -> None:  # fmt: skip
    deadline = time.monotonic() + timeout
    watched = list(members)
    while not condition():
        for member in watched:
            if member.crash is not None:
                raise member.crash
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(0.05)
