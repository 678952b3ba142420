import json
import logging

from confluent_kafka import Consumer, Producer

from .lookup import GeoLookup

log = logging.getLogger(__name__)


class Enricher:
    def __init__(self, conf, source, sink, mmdb, commit_on_revoke=True):
        self.consumer = Consumer({**conf, "enable.auto.commit": False})
        self.producer = Producer({"bootstrap.servers": conf["bootstrap.servers"], "linger.ms": 20})
        self.source = source
        self.sink = sink
        self.geo = GeoLookup(mmdb)
        self.commit_on_revoke = commit_on_revoke

    def _on_assign(self, consumer, partitions):
        log.info("enriching partitions %s", [p.partition for p in partitions])

    def _on_revoke(self, consumer, partitions):
        self.producer.flush(30)
        consumer.commit(asynchronous=False)

    def run(self):
        callbacks = {"on_assign": self._on_assign}
        if self.commit_on_revoke:
            callbacks["on_revoke"] = self._on_revoke
        self.consumer.subscribe([self.source], **callbacks)
        while True:
            msg = self.consumer.poll(1.0)
            if msg is None:
                continue
            if msg.error():
                log.warning("consume error %s", msg.error())
                continue
            event = json.loads(msg.value())
            event["country"] = self.geo.country(event.get("ip", ""))
            self.producer.produce(self.sink, key=msg.key(), value=json.dumps(event).encode())
            self.producer.poll(0)
            if msg.offset() % 1000 == 0:
                self.producer.flush()
                self.consumer.commit(asynchronous=False)
