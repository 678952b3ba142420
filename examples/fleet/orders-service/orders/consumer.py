"""Order consumer: commits what it processed before giving partitions away."""

import logging

from kafka import KafkaConsumer, TopicPartition
from kafka.consumer.subscription_state import ConsumerRebalanceListener

from orders.models import Order
from orders.store import save_order

log = logging.getLogger(__name__)


class CommitOnRevoke(ConsumerRebalanceListener):
    """Commit processed offsets when partitions are revoked."""

    def __init__(self, consumer):
        self.consumer = consumer

    def on_partitions_revoked(self, revoked):
        log.info("revoked %s, committing", revoked)
        self.consumer.commit()

    def on_partitions_assigned(self, assigned):
        log.info("assigned %s", assigned)


def run(bootstrap: str) -> None:
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id="orders-service",
        enable_auto_commit=False,
    )
    consumer.subscribe(["orders"], listener=CommitOnRevoke(consumer))
    for record in consumer:
        save_order(Order.from_json(record.value))
        consumer.commit({TopicPartition(record.topic, record.partition): record.offset + 1})
