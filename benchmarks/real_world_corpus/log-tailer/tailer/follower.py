"""Background follower used by the web UI: a thread owns the consumer, created lazily."""
import collections
import logging
import threading

from kafka import KafkaConsumer
from kafka.consumer.subscription_state import ConsumerRebalanceListener

log = logging.getLogger(__name__)


class _GenerationLogger(ConsumerRebalanceListener):
    def __init__(self, thread):
        self._thread = thread

    def on_partitions_revoked(self, revoked):
        log.info("generation %s ending", self._thread._ensure_consumer()._coordinator._generation)

    def on_partitions_assigned(self, assigned):
        coordinator = self._thread._ensure_consumer()._coordinator
        log.info("generation %s: %d partitions", coordinator._generation, len(assigned))
        self._thread.buffer.clear()


class FollowerThread(threading.Thread):
    def __init__(self, topic, maxlen=1000, **config):
        super().__init__(daemon=True, name=f"follow-{topic}")
        self.topic = topic
        self.config = config
        self.buffer = collections.deque(maxlen=maxlen)
        self._consumer = None
        self._lock = threading.Lock()

    def _ensure_consumer(self):
        with self._lock:
            if self._consumer is None:
                self._consumer = KafkaConsumer(**self.config)
            return self._consumer

    def run(self):
        consumer = self._ensure_consumer()
        consumer.subscribe([self.topic], listener=_GenerationLogger(self))
        for record in consumer:
            self.buffer.append(record.value)
