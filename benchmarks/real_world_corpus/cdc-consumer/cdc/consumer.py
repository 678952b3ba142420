import json
import logging

from confluent_kafka import Consumer

from .positions import PositionTable
from .strategies import ThreadedApplyStrategy

log = logging.getLogger(__name__)


class CdcConsumer:
    def __init__(self, conf, topics, warehouse, positions_db="positions.db"):
        self.consumer = Consumer({**conf, "enable.auto.commit": False})
        self.topics = topics
        self.positions = PositionTable(positions_db)
        self.strategy = ThreadedApplyStrategy(self.consumer, warehouse.apply)

    def _on_assign(self, consumer, partitions):
        # resume from our own bookkeeping when it is ahead of the group's committed offsets
        for p in partitions:
            stored = self.positions.load(p.topic, p.partition)
            if stored is not None:
                p.offset = stored + 1
        log.info("assign %s", [(p.partition, p.offset) for p in partitions])
        consumer.assign(partitions)

    def _on_revoke(self, consumer, partitions):
        log.info("revoke %s: waiting for in-flight applies", [p.partition for p in partitions])
        self.strategy.join()

    def _on_lost(self, consumer, partitions):
        log.error("lost %s; in-flight applies will be redone by the new owner", partitions)

    def consume(self):
        self.consumer.subscribe(self.topics, on_assign=self._on_assign, on_revoke=self._on_revoke,
                                on_lost=self._on_lost)
        while True:
            msg = self.consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error():
                log.error("error: %s", msg.error())
                continue
            if msg.value() is None:  # tombstone
                continue
            event = json.loads(msg.value())
            if event.get("op") not in ("c", "u", "d", "r"):
                continue
            self.strategy.submit(msg)
