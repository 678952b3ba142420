import json
import logging
import time

from confluent_kafka import Consumer

from .backend import GraphiteBackend

log = logging.getLogger(__name__)


def run(conf, topics, graphite_host):
    backend = GraphiteBackend(graphite_host)
    consumer = Consumer(conf)
    paused = False

    def on_rebalance(consumer, partitions):
        log.info("rebalance: %s", [(p.topic, p.partition) for p in partitions])

    consumer.subscribe(topics, on_assign=on_rebalance, on_revoke=on_rebalance)

    while True:
        if not backend.healthy():
            if not paused:
                log.warning("graphite down, pausing consumption")
                consumer.pause(consumer.assignment())
                paused = True
            time.sleep(1)
            consumer.poll(0)  # keep the group membership alive
            continue
        if paused:
            consumer.resume(consumer.assignment())
            paused = False
        msg = consumer.poll(1.0)
        if msg is None or msg.error():
            continue
        points = json.loads(msg.value())
        backend.send([(p["name"], p["value"], p.get("ts")) for p in points])
