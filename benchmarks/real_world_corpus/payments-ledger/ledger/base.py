import logging
import threading

from confluent_kafka import Consumer

log = logging.getLogger(__name__)


class BaseKafkaWorker:
    """Subclasses set ``topics`` and implement ``handle(msg)`` and ``checkpoint()``."""

    topics = ()
    poll_timeout = 1.0

    def __init__(self, conf):
        self._conf = {**conf, "enable.auto.commit": False}
        self._consumer = None
        self._stopped = threading.Event()

    @property
    def consumer(self):
        if self._consumer is None:
            self._consumer = Consumer(self._conf)
        return self._consumer

    def handle(self, msg):
        raise NotImplementedError

    def checkpoint(self):
        """Persist whatever ``handle`` buffered. Called before offsets are committed."""

    def __on_assign(self, consumer, partitions):
        log.info("%s assigned %s", type(self).__name__, [p.partition for p in partitions])

    def __on_revoke(self, consumer, partitions):
        log.info("%s revoked %s", type(self).__name__, [p.partition for p in partitions])
        self.checkpoint()
        consumer.commit(asynchronous=False)

    def start(self):
        self.consumer.subscribe(
            list(self.topics),
            on_assign=self.__on_assign,
            on_revoke=self.__on_revoke,
            on_lost=self.__on_revoke,
        )
        while not self._stopped.is_set():
            msg = self.consumer.poll(self.poll_timeout)
            if msg is None:
                continue
            if msg.error():
                log.error("kafka error: %s", msg.error())
                continue
            self.handle(msg)
        self.checkpoint()
        self.consumer.close()

    def stop(self):
        self._stopped.set()
