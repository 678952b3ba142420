import logging
import threading

from kafka import ConsumerRebalanceListener, KafkaConsumer
from kafka.errors import CommitFailedError

log = logging.getLogger(__name__)


class TailClient(ConsumerRebalanceListener):
    """Follows log topics and hands lines to a callback. The client is its own listener."""

    def __init__(self, topics, on_line, **config):
        self._topics = topics
        self._on_line = on_line
        self._consumer = KafkaConsumer(enable_auto_commit=False, **config)
        self._paused = False
        self._closed = threading.Event()

    def on_partitions_revoked(self, revoked):
        try:
            self._consumer.commit()
        except CommitFailedError:
            log.warning("commit failed during rebalance; some lines will be tailed twice")
        # everything we paused is gone with the rebalance anyway
        self._paused = False

    def on_partitions_assigned(self, assigned):
        log.debug("tailing %s", sorted(f"{tp.topic}:{tp.partition}" for tp in assigned))

    def pause(self):
        if not self._paused:
            self._consumer.pause(*self._consumer.assignment())
            self._paused = True

    def resume(self):
        if self._paused:
            self._consumer.resume(*self._consumer.assignment())
            self._paused = False

    def tail(self):
        self._consumer.subscribe(self._topics, None, self)
        while not self._closed.is_set():
            for records in self._consumer.poll(timeout_ms=200).values():
                for record in records:
                    self._on_line(record.topic, record.value.decode("utf-8", "replace"))
        self._consumer.close()

    def close(self):
        self._closed.set()
