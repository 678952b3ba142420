"""Billing consumer (kafka-python), written in 2019 and never touched since."""

import functools

import requests
from kafka import KafkaConsumer
from kafka.consumer.subscription_state import ConsumerRebalanceListener

LISTENERS = {}


def make_listener(consumer, audit_url):
    class AuditingListener(ConsumerRebalanceListener):
        def on_partitions_revoked(self, revoked):
            requests.post(audit_url, json={"revoked": [str(tp) for tp in revoked]})
            consumer.commit()

        def on_partitions_assigned(self, assigned):
            LISTENERS["consumer"] = consumer

    return AuditingListener()


def main() -> None:
    consumer = KafkaConsumer(bootstrap_servers="kafka:9092", group_id="billing")
    listener = make_listener(consumer, "http://audit.internal/rebalance")
    consumer.subscribe(topics=["invoices"], listener=listener)
    consumer.pause(*consumer.assignment())  # wait for the nightly window
    for record in consumer:
        functools.partial(print, "billing")(record.value)
