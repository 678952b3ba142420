"""A confluent-kafka worker registering its own methods as callbacks, each under a decorator
of this file that only passes calls through, holding a metrics lock around them (the shape of
``shapes/transparent_decorators.py`` on confluent: tests/codemods/test_transparent_decorators.py,
an owner's decorated methods renamed in place). The revocation commits what was processed
with a bare ``consumer.commit()``."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

from confluent_kafka import Consumer, Message, TopicPartition

METRICS_LOCK = threading.Lock()


def synchronized(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Hold the metrics lock while the callback runs."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with METRICS_LOCK:
            return fn(*args, **kwargs)

    return wrapper


class Worker:
    def __init__(self, config: dict[str, Any], topic: str) -> None:
        self.topic = topic
        self.owned: set[int] = set()
        self.consumer = Consumer(config)

    @synchronized
    def on_assign(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self.owned |= {p.partition for p in partitions}

    @synchronized
    def on_revoke(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        consumer.commit()
        self.owned -= {p.partition for p in partitions}

    def run(self, handle: Callable[[Message[Any, Any]], None], stopping: threading.Event) -> None:
        self.consumer.subscribe([self.topic], on_assign=self.on_assign, on_revoke=self.on_revoke)
        try:
            while not stopping.is_set():
                message = self.consumer.poll(0.1)
                if message is None or message.error():
                    continue
                handle(message)
        finally:
            self.consumer.close()
