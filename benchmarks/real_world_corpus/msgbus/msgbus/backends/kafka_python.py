import logging
from typing import TYPE_CHECKING

import kafka
from kafka import KafkaConsumer

if TYPE_CHECKING:
    from ..handlers import RebalanceHandler

log = logging.getLogger(__name__)


class ConsumerRebalanceListener(kafka.ConsumerRebalanceListener):
    """Adapts a msgbus RebalanceHandler (two-argument callbacks) to kafka-python."""

    def __init__(self, consumer: KafkaConsumer, handler: "RebalanceHandler"):
        self.consumer = consumer
        self.handler = handler

    def on_partitions_revoked(self, revoked):
        self.handler.on_revoke(self.consumer, list(revoked))

    def on_partitions_assigned(self, assigned):
        self.handler.on_assign(self.consumer, list(assigned))


class KafkaPythonBackend:
    def __init__(self, **config):
        self.consumer = KafkaConsumer(**config)

    def subscribe(self, topics, handler=None):
        if handler is None:
            self.consumer.subscribe(topics, listener=kafka.ConsumerRebalanceListener())
        else:
            self.consumer.subscribe(topics, listener=ConsumerRebalanceListener(self.consumer, handler))

    def poll(self, timeout):
        for records in self.consumer.poll(timeout_ms=int(timeout * 1000)).values():
            yield from records

    def commit(self):
        self.consumer.commit()
