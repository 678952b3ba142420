"""A confluent-kafka service keeping one consumer per topic in a dict and subscribing each as
``consumers[topic].subscribe([topic], on_assign=assign_cb, ...)`` in a loop over the topics
(the held-out sample of tests/codemods/test_subscript_receiver.py). ``assign_cb`` starts each
partition at its committed offset, set in a loop then assigned; ``revoke_cb`` commits what
was processed synchronously."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from confluent_kafka import Consumer, Message


def start(topics: list[str], config: dict[str, Any], owned: set[int]) -> dict[str, Consumer]:
    consumers = {}

    def assign_cb(consumer, partitions):
        for partition in partitions:
            partition.offset = consumer.committed([partition], timeout=10)[0].offset
        owned.update(p.partition for p in partitions)
        consumer.assign(partitions)

    def revoke_cb(consumer, partitions):
        consumer.commit(asynchronous=False)
        owned.difference_update(p.partition for p in partitions)

    for topic in topics:
        consumers[topic] = Consumer(config)
        consumers[topic].subscribe([topic], on_assign=assign_cb, on_revoke=revoke_cb)
    return consumers


def serve(
    consumers: dict[str, Consumer],
    handle: Callable[[Message[Any, Any]], None],
    stopping: threading.Event,
) -> None:
    try:
        while not stopping.is_set():
            for consumer in consumers.values():
                message = consumer.poll(0.1)
                if message is None or message.error():
                    continue
                handle(message)
    finally:
        for consumer in consumers.values():
            consumer.close()
