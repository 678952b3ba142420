"""Runs N batching workers; a worker pauses its partitions while the sink is backed up."""
import logging
import queue
import threading

from kafka import KafkaConsumer
from kafka.consumer.subscription_state import ConsumerRebalanceListener as BaseListener

log = logging.getLogger(__name__)


class Runner(threading.Thread):
    class RebalanceListener(BaseListener):
        def __init__(self, runner, worker_id):
            self.runner = runner
            self.worker_id = worker_id

        def on_partitions_revoked(self, revoked):
            log.info("[worker %s] revoked %s", self.worker_id, revoked)
            self.runner.drain()
            self.runner.consumer.commit()

        def on_partitions_assigned(self, assigned):
            log.info("[worker %s] assigned %s", self.worker_id, assigned)
            if self.runner.backpressure:
                self.runner.consumer.pause(*assigned)

    def __init__(self, worker_id, topics, handler, **kwargs):
        super().__init__(name=f"runner-{worker_id}", daemon=True)
        self.worker_id = worker_id
        self.topics = topics
        self.handler = handler
        self.consumer = KafkaConsumer(enable_auto_commit=False, **kwargs)
        self.queue = queue.Queue(maxsize=1000)
        self.backpressure = False

    def drain(self):
        while not self.queue.empty():
            self.handler(self.queue.get_nowait())

    def run(self):
        self.consumer.subscribe(self.topics, listener=self.RebalanceListener(self, self.worker_id))
        while True:
            batch = self.consumer.poll(timeout_ms=500)
            for records in batch.values():
                for r in records:
                    try:
                        self.queue.put_nowait(r)
                    except queue.Full:
                        self.backpressure = True
                        self.consumer.pause(*self.consumer.assignment())
            if self.backpressure and self.queue.qsize() < 100:
                self.backpressure = False
                self.consumer.resume(*self.consumer.paused())
            self.drain()
