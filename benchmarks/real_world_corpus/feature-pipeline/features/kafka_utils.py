"""Thin helpers around confluent_kafka shared by the pipeline's stages."""
import logging

from confluent_kafka import Consumer

log = logging.getLogger(__name__)


def make_consumer(brokers, group, **overrides):
    conf = {
        "bootstrap.servers": brokers,
        "group.id": group,
        "enable.auto.commit": False,
        "auto.offset.reset": "latest",
    }
    conf.update(overrides)
    return Consumer(conf)


def subscribe_with_commit(consumer, topics, on_revoke):
    """Subscribe so that the caller's revoke hook runs before the partitions go away."""
    log.info("subscribing to %s", topics)
    consumer.subscribe(topics, on_revoke=on_revoke)


class ConsumerProxy:
    """Wraps a Consumer so stages can be unit-tested with a fake."""

    def __init__(self, consumer):
        self._consumer = consumer

    def subscribe(self, topics, on_assign=lambda c, p: None, on_revoke=lambda c, p: None):
        self._consumer.subscribe(topics, on_assign, on_revoke)

    def poll(self, timeout):
        return self._consumer.poll(timeout)

    def commit(self, **kwargs):
        return self._consumer.commit(**kwargs)

    def close(self):
        self._consumer.close()
