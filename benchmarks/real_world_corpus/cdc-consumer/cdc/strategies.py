"""Apply strategies: how Debezium change events reach the warehouse."""
import logging
import queue
import threading

log = logging.getLogger(__name__)


class ThreadedApplyStrategy:
    """Applies change events on worker threads; join() waits for them and commits offsets."""

    def __init__(self, consumer, apply_fn, threads=4):
        self.consumer = consumer
        self.apply_fn = apply_fn
        self.queues = [queue.Queue() for _ in range(threads)]
        self.done = {}
        self.lock = threading.Lock()
        for i, q in enumerate(self.queues):
            threading.Thread(target=self._work, args=(q,), name=f"apply-{i}", daemon=True).start()

    def submit(self, msg):
        self.queues[msg.partition() % len(self.queues)].put(msg)

    def _work(self, q):
        while True:
            msg = q.get()
            try:
                self.apply_fn(msg)
                with self.lock:
                    self.done[(msg.topic(), msg.partition())] = msg
            finally:
                q.task_done()

    def join(self):
        for q in self.queues:
            q.join()
        with self.lock:
            last = list(self.done.values())
            self.done.clear()
        for msg in last:
            self.consumer.commit(message=msg, asynchronous=False)
