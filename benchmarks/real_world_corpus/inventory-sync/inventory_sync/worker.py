import logging
import threading
import time

from confluent_kafka import Consumer, TopicPartition

from .health import HealthState

log = logging.getLogger(__name__)


class InventoryWorker(threading.Thread):
    """One consumer per thread; cooperative-sticky so a deploy does not stop the world."""

    def __init__(self, conf, topics, warehouse_api, health: HealthState):
        super().__init__(name="inventory-worker", daemon=True)
        conf = dict(conf)
        conf.setdefault("partition.assignment.strategy", "cooperative-sticky")
        conf["enable.auto.commit"] = False
        self.consumer = Consumer(conf)
        self.topics = topics
        self.api = warehouse_api
        self.health = health
        self._stop_event = threading.Event()
        self._uncommitted = {}

    def _on_assign(self, _consumer, partitions):
        log.info("incremental assign %s", partitions)
        with self.health.lock:
            self.health.assigned.update(f"{p.topic}-{p.partition}" for p in partitions)
        # warm the SKU cache for the new partitions in the background
        threading.Thread(target=self.api.warm_cache, args=([p.partition for p in partitions],), daemon=True).start()
        self.consumer.incremental_assign(partitions)

    def _on_revoke(self, _consumer, partitions):
        log.info("incremental revoke %s", partitions)
        offsets = [
            TopicPartition(p.topic, p.partition, self._uncommitted[(p.topic, p.partition)] + 1)
            for p in partitions
            if (p.topic, p.partition) in self._uncommitted
        ]
        if offsets:
            self.consumer.commit(offsets=offsets, asynchronous=False)
        for p in partitions:
            self._uncommitted.pop((p.topic, p.partition), None)
        with self.health.lock:
            self.health.assigned.difference_update(f"{p.topic}-{p.partition}" for p in partitions)
        self.consumer.incremental_unassign(partitions)

    def _on_lost(self, _consumer, partitions):
        # The partitions already belong to someone else: committing here would fail or,
        # worse, overwrite the new owner's progress. Just forget about them.
        log.warning("partitions lost: %s", partitions)
        for p in partitions:
            self._uncommitted.pop((p.topic, p.partition), None)
        with self.health.lock:
            self.health.assigned.difference_update(f"{p.topic}-{p.partition}" for p in partitions)

    def stop(self):
        self._stop_event.set()

    def run(self):
        self.consumer.subscribe(
            self.topics, on_assign=self._on_assign, on_revoke=self._on_revoke, on_lost=self._on_lost
        )
        try:
            while not self._stop_event.is_set():
                msg = self.consumer.poll(0.5)
                self.health.last_poll = time.time()
                if msg is None or msg.error():
                    continue
                self.api.apply_stock_change(msg.key(), msg.value())
                self._uncommitted[(msg.topic(), msg.partition())] = msg.offset()
        finally:
            self.consumer.close()
