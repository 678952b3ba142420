import json
import logging
import os
import time

from confluent_kafka import Consumer, KafkaException, Producer

from .model import Model

log = logging.getLogger("fraud-scorer")


class FraudScorer:
    def __init__(self):
        self.consumer = Consumer({
            "bootstrap.servers": os.environ["BROKERS"],
            "group.id": "fraud-scorer",
            "enable.auto.commit": False,
            "max.poll.interval.ms": 600000,
        })
        self.producer = Producer({"bootstrap.servers": os.environ["BROKERS"]})
        self.model = Model(os.environ.get("MODEL_PATH", "model.pkl"))
        self.since_commit = 0
        self.assigned_at = None

    def _on_assign(self, _, partitions):
        self.assigned_at = time.time()
        log.info("scoring %d partitions", len(partitions))

    def _on_revoke(self, _, partitions):
        self.producer.flush()
        if self.since_commit:
            try:
                self.consumer.commit()
            except KafkaException:
                log.exception("commit on revoke failed")
            self.since_commit = 0

    def run(self):
        self.consumer.subscribe(["transactions"], on_assign=self._on_assign, on_revoke=self._on_revoke,
                                on_lost=self._on_revoke)
        while True:
            msg = self.consumer.poll(1)
            if msg is None or msg.error():
                continue
            tx = json.loads(msg.value())
            score = self.model.score(tx["features"])
            if score > 0.9:
                self.producer.produce("fraud-alerts", key=msg.key(), value=json.dumps({**tx, "score": score}))
            self.since_commit += 1
            if self.since_commit >= 1000:
                self.consumer.commit(asynchronous=False)
                self.since_commit = 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    FraudScorer().run()
