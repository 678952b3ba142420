"""A kafka-python listener whose callbacks sit under a decorator of this file that only
passes calls through, holding a metrics lock around them (the shape of
``shapes/transparent_decorators.py``, fixture tests/codemods/fixtures/transparent_decorators.py:
a lag exporter's ``@synchronized``). The revocation commits with a bare
``self.consumer.commit()`` through the injected consumer."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

from kafka import KafkaConsumer
from kafka.consumer.subscription_state import ConsumerRebalanceListener

METRICS_LOCK = threading.Lock()


def synchronized(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Hold the metrics lock while the callback runs."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with METRICS_LOCK:
            return fn(*args, **kwargs)

    return wrapper


class OwnershipListener(ConsumerRebalanceListener):
    def __init__(self, consumer: KafkaConsumer) -> None:
        self.consumer = consumer
        self.owned: set[Any] = set()

    @synchronized
    def on_partitions_revoked(self, revoked: Any) -> None:
        self.consumer.commit()
        self.owned.difference_update(revoked)

    @synchronized
    def on_partitions_assigned(self, assigned: Any) -> None:
        self.owned.update(assigned)


def consume(
    consumer: KafkaConsumer, topic: str, handle: Callable[[Any], None], stopping: threading.Event
) -> None:
    consumer.subscribe([topic], listener=OwnershipListener(consumer))
    try:
        while not stopping.is_set():
            for records in consumer.poll(timeout_ms=100).values():
                for record in records:
                    handle(record)
    finally:
        consumer.close()
