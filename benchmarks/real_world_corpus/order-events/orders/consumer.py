import json
import logging
import signal
import time

from confluent_kafka import Consumer, KafkaError, KafkaException

from .config import settings
from .db import OrderStore

log = logging.getLogger(__name__)


class OrderEventsConsumer:
    """Batches order events and writes them to the database, committing after each write."""

    def __init__(self, cfg=settings):
        self.cfg = cfg
        self.consumer = Consumer(cfg.consumer_config())
        self.store = OrderStore(cfg.dsn)
        self._batch = []
        self._last_flush = time.monotonic()
        self._running = False

    def _on_assign(self, consumer, partitions):
        log.info("assigned: %s", [f"{p.topic}[{p.partition}]" for p in partitions])

    def _on_revoke(self, consumer, partitions):
        log.info("revoked: %s", [f"{p.topic}[{p.partition}]" for p in partitions])
        self._flush(force=True)

    def _flush(self, force=False):
        due = time.monotonic() - self._last_flush >= self.cfg.flush_interval_s
        if not self._batch or not (force or due or len(self._batch) >= self.cfg.batch_size):
            return
        self.store.write_batch([(e["id"], e["status"], e["amount"], e["ts"]) for e in self._batch])
        try:
            self.consumer.commit(asynchronous=False)
        except KafkaException as exc:
            log.warning("commit failed: %s", exc)
        self._batch.clear()
        self._last_flush = time.monotonic()

    def stop(self, *_):
        self._running = False

    def run(self):
        signal.signal(signal.SIGTERM, self.stop)
        self.consumer.subscribe(
            self.cfg.topics,
            on_assign=self._on_assign,
            on_revoke=self._on_revoke,
            on_lost=self._on_revoke,
        )
        self._running = True
        try:
            while self._running:
                msg = self.consumer.poll(1.0)
                if msg is None:
                    self._flush()
                    continue
                if msg.error():
                    if msg.error().code() == KafkaError._PARTITION_EOF:
                        continue
                    raise KafkaException(msg.error())
                try:
                    self._batch.append(json.loads(msg.value()))
                except ValueError:
                    log.exception("skipping bad record at %s:%d", msg.topic(), msg.offset())
                self._flush()
        finally:
            self._flush(force=True)
            self.consumer.close()
            self.store.close()
