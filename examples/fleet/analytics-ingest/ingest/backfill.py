"""One-off backfill consumer that drains a topic from the beginning."""

from confluent_kafka import Consumer

_active = []


class Backfill:
    def __init__(self, topic):
        self.topic = topic
        self.consumer = Consumer({"bootstrap.servers": "kafka:9092", "group.id": "backfill"})

    def remember(self, consumer, partitions):
        _active.append(consumer)  # kept for the shutdown hook

    def drain(self, consumer, partitions):
        while consumer.poll(0.1) is not None:
            pass
        consumer.commit(asynchronous=False)

    def run(self):
        self.consumer.subscribe([self.topic], on_assign=self.remember, on_revoke=self.drain)
        while True:
            self.consumer.poll(1.0)
