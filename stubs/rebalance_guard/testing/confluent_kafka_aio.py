"""Drive a :class:`~rebalance_guard.confluent_kafka_aio.RebalanceListener` (confluent's
``AIOConsumer``) without a broker.

The listener (``async def`` or ``def`` methods) runs through the runtime's own adapter (the
``async def`` ``on_assign``/``on_revoke``/``on_lost`` that ``rebalance_guard.confluent_kafka_aio``
gives ``AIOConsumer.subscribe()``) and gets the runtime's
:class:`~rebalance_guard.confluent_kafka_aio.AIOConfluentRebalanceView` over
:class:`RecordingAIOConsumer`: the in-memory confluent consumer of
:mod:`rebalance_guard.testing.confluent_kafka` with every method a coroutine, as on
``AIOConsumer``. Everything else is as there (seeks and pauses in ``on_partitions_assigned``
applied with the assignment, eager or cooperative calls, ``_ASSIGNMENT_LOST`` for a commit of
lost partitions, results keyed by ``(topic, partition)``), plus ``NotAwaitedError`` for a view
coroutine never awaited. The harness's steps are coroutines::

    harness = ListenerHarness(CommitOnRevoke())
    await harness.assign([tp])
    harness.set_positions({tp: 42})
    await harness.revoke([tp])
    assert harness.committed == {("orders", 0): 42}
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from confluent_kafka import TopicPartition

from rebalance_guard.confluent_kafka_aio import RebalanceListener, _Adapter
from rebalance_guard.testing._recording import AsyncDriver, Errors, Event, Key, Protocol, Recording
from rebalance_guard.testing.confluent_kafka import ListenerHarness as _SyncHarness
from rebalance_guard.testing.confluent_kafka import RecordingConsumer, _tp, callback_step

__all__ = ["ListenerHarness", "RecordingAIOConsumer"]


class RecordingAIOConsumer:
    """An in-memory ``AIOConsumer``: :class:`RecordingConsumer`'s methods, as coroutines."""

    def __init__(self, recording: Recording, protocol: Protocol) -> None:
        self.recording = recording
        self._consumer = RecordingConsumer(recording, protocol)

    def __getattr__(self, name: str) -> Callable[..., Coroutine[Any, Any, Any]]:
        method = getattr(self._consumer, name)

        async def call(*args: Any, **kwargs: Any) -> Any:
            return method(*args, **kwargs)

        call.__name__ = name
        return call


class ListenerHarness(AsyncDriver[TopicPartition | Key]):
    """Runs one listener's rebalances the way ``set_rebalance_listener`` runs them.

    ``protocol``: ``"eager"`` (range, roundrobin) or ``"cooperative"`` (cooperative-sticky,
    KIP-848). A callback's exception (``await consumer.poll()`` raises it) is raised by the
    step, after the adapter completed the (un)assignment.
    """

    def __init__(self, listener: RebalanceListener, *, protocol: Protocol = "eager") -> None:
        self.protocol = protocol
        self.recording = Recording()
        self.consumer = RecordingAIOConsumer(self.recording, protocol)
        self.errors = Errors()
        self._adapter = _Adapter(listener, protocol)

    to_key = _SyncHarness.to_key
    from_key = _SyncHarness.from_key

    async def _step(self, event: Event, keys: list[Key]) -> None:
        with callback_step(self, event) as callback:
            await callback(self.consumer, [_tp(k) for k in keys])
