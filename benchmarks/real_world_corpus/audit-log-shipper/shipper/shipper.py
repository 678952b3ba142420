import json
import logging
import time

from confluent_kafka import Consumer

from .elastic import AuditIndex
from .offsets import commit_all

log = logging.getLogger(__name__)


class AuditShipper:
    def __init__(self, kafka_conf, topic, es_hosts):
        self._consumer = Consumer({**kafka_conf, "enable.auto.commit": False})
        self._topic = topic
        self._index = AuditIndex(es_hosts)
        self._buffer = []
        self._pending = {}

    def _ship(self):
        while self._buffer:
            try:
                self._index.bulk(self._buffer)
                self._buffer = []
            except Exception:
                log.exception("elasticsearch unavailable, retrying in 15s")
                time.sleep(15)

    def _on_revoke(self, consumer, partitions):
        log.info("rebalance: shipping %d buffered docs before giving up %s", len(self._buffer), partitions)
        self._ship()
        commit_all(consumer, self._pending)

    def _on_assign(self, consumer, partitions):
        log.info("now shipping %s", ", ".join(str(p.partition) for p in partitions))

    def serve_forever(self):
        self._consumer.subscribe([self._topic], on_assign=self._on_assign, on_revoke=self._on_revoke)
        last = time.time()
        while True:
            msgs = self._consumer.consume(num_messages=500, timeout=1.0)
            for m in msgs:
                if m.error():
                    log.error("%s", m.error())
                    continue
                self._buffer.append(json.loads(m.value()))
                self._pending[(m.topic(), m.partition())] = m.offset()
            if len(self._buffer) >= 1000 or time.time() - last > 10:
                self._ship()
                commit_all(self._consumer, self._pending)
                last = time.time()
