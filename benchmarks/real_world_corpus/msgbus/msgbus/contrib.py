"""Listeners contributed by users; not all are wired up anywhere."""
import logging

from kafka import ConsumerRebalanceListener, KafkaConsumer

log = logging.getLogger(__name__)


class LoggingListener(ConsumerRebalanceListener):
    """kafka-python listener written like a confluent callback. Kept for old services."""

    def on_partitions_revoked(self, consumer, partitions):
        log.info("revoked %s", partitions)

    def on_partitions_assigned(self, consumer, partitions):
        log.info("assigned %s", partitions)


class SeekToEndListener(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    def on_partitions_revoked(self, revoked):
        pass

    def on_partitions_assigned(self, assigned):
        self.consumer.seek_to_end(*assigned)


def debug_consumer(topic, **config):
    class PrintListener(ConsumerRebalanceListener):
        def on_partitions_revoked(self, revoked):
            print("revoked", revoked)

        def on_partitions_assigned(self, assigned):
            print("assigned", assigned)

    consumer = KafkaConsumer(**config)
    consumer.subscribe([topic], listener=PrintListener())
    return consumer


def legacy_consumer(topic, **config):
    consumer = KafkaConsumer(**config)
    consumer.subscribe([topic], listener=LoggingListener())
    return consumer
