import logging
import threading
import time

from kafka import KafkaConsumer
from kafka.consumer.subscription_state import ConsumerRebalanceListener as BaseListener

log = logging.getLogger(__name__)


class BatchingConsumer:
    """Accumulates records per partition and hands full batches to a sink."""

    def __init__(self, topics, sink, batch_size=10_000, max_age_s=60, **consumer_kwargs):
        self.consumer = KafkaConsumer(enable_auto_commit=False, **consumer_kwargs)
        self.topics = topics
        self.sink = sink
        self.batch_size = batch_size
        self.max_age_s = max_age_s
        self.batches = {}
        self.started = {}
        self.lock = threading.RLock()

    def flush(self, partitions=None):
        with self.lock:
            for tp in list(self.batches):
                if partitions is not None and tp not in partitions:
                    continue
                rows = self.batches.pop(tp)
                self.started.pop(tp, None)
                if rows:
                    self.sink.put(f"{tp.topic}-{tp.partition}-{int(time.time())}", rows)
            self.consumer.commit()

    def run(self):
        self.consumer.subscribe(self.topics, listener=FlushOnRevoke(self))
        for record in self.consumer:
            tp = (record.topic, record.partition)
            with self.lock:
                self.batches.setdefault(tp, []).append([record.offset, record.key, record.value])
                self.started.setdefault(tp, time.time())
                full = len(self.batches[tp]) >= self.batch_size
                old = time.time() - self.started[tp] > self.max_age_s
            if full or old:
                self.flush()


class FlushOnRevoke(BaseListener):
    def __init__(self, worker):
        self.worker = worker

    def on_partitions_revoked(self, revoked):
        log.info("flushing before revoke of %s", revoked)
        self.worker.flush()

    def on_partitions_assigned(self, assigned):
        log.info("assigned %s", assigned)
