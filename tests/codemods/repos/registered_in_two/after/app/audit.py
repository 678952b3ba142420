from kafka import KafkaConsumer

from .listeners import CommitOnRevoke
from rebalance_guard.kafka_python import set_rebalance_listener


def run(log):
    audit = KafkaConsumer(group_id="audit", enable_auto_commit=False)
    listener = CommitOnRevoke(log)
    set_rebalance_listener(audit, listener)
    audit.subscribe(["audit"])
    return audit
