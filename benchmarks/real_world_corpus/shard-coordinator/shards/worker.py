import json
import logging
import time

from confluent_kafka import Producer

from .coordinator import ShardCoordinator

log = logging.getLogger(__name__)


class BillingScheduler:
    """Owns a subset of billing shards and emits invoice jobs for them to Kafka."""

    def __init__(self, redis_url, brokers):
        self.coordinator = ShardCoordinator(redis_url)
        self.producer = Producer({"bootstrap.servers": brokers, "enable.idempotence": True})
        self.shards = set()

    def _on_assign(self, shards):
        log.info("now scheduling shards %s", shards)
        self.shards.update(shards)

    def _on_revoke(self, shards):
        log.info("releasing shards %s", shards)
        self.shards.difference_update(shards)
        self.producer.flush(10)

    def run(self):
        self.coordinator.subscribe("billing", on_assign=self._on_assign, on_revoke=self._on_revoke)
        while True:
            for shard in list(self.shards):
                self.producer.produce("invoice-jobs", key=str(shard), value=json.dumps({"shard": shard, "ts": time.time()}))
            self.producer.poll(0)
            time.sleep(60)
