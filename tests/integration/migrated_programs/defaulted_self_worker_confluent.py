"""A confluent-kafka worker whose callbacks are nested functions reaching the worker through a
defaulted parameter, ``_self=self`` (the closure idiom from before closures; the shape of
``shapes/defaulted_parameters.py``). They track the partitions the worker owns; the
revocation commits what was processed with a bare ``consumer.commit()``."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import confluent_kafka


class Worker:
    def __init__(self, consumer: confluent_kafka.Consumer) -> None:
        self.consumer = consumer
        self.owned: set[int] = set()
        self.revocations = 0

    def start(self, topic: str, handle: Callable[[Any], None], stopping: threading.Event) -> None:
        def on_assign(consumer, partitions, _self=self):
            _self.owned |= {p.partition for p in partitions}

        def on_revoke(consumer, partitions, _self=self):
            consumer.commit()
            _self.revocations += 1
            _self.owned -= {p.partition for p in partitions}

        self.consumer.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke)
        try:
            while not stopping.is_set():
                message = self.consumer.poll(0.1)
                if message is None or message.error():
                    continue
                handle(message)
        finally:
            self.consumer.close()
