from kafka import KafkaConsumer

from app.listeners import CommitOnRevoke
from rebalance_guard.kafka_python import set_rebalance_listener


def run(log):
    consumer = KafkaConsumer(group_id="billing", enable_auto_commit=False)
    set_rebalance_listener(consumer, CommitOnRevoke(log))
    consumer.subscribe(["billing"])
    return consumer
