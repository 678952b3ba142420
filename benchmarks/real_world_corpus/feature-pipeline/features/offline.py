"""Offline stage: appends events to parquet files, one per hour."""
import logging
import time

import pyarrow as pa
import pyarrow.parquet as pq

from .kafka_utils import ConsumerProxy, make_consumer, subscribe_with_commit

log = logging.getLogger(__name__)


class ParquetStage:
    def __init__(self, brokers, topics, out_dir):
        self.consumer = make_consumer(brokers, "features-offline")
        self.topics = topics
        self.out_dir = out_dir
        self.rows = []

    def write(self):
        if not self.rows:
            return
        table = pa.Table.from_pylist(self.rows)
        pq.write_table(table, f"{self.out_dir}/features-{int(time.time())}.parquet")
        self.rows = []

    def on_revoke(self, consumer, partitions):
        self.write()
        consumer.commit(asynchronous=False)

    def run(self):
        subscribe_with_commit(self.consumer, self.topics, self.on_revoke)
        while True:
            msg = self.consumer.poll(1.0)
            if msg is not None and not msg.error():
                self.rows.append({"key": msg.key(), "value": msg.value(), "ts": msg.timestamp()[1]})
            if len(self.rows) > 50_000:
                self.write()
                self.consumer.commit(asynchronous=False)


class BackfillStage:
    """Same as ParquetStage but through the proxy, so tests can swap the consumer."""

    def __init__(self, brokers, topics):
        self.consumer = ConsumerProxy(make_consumer(brokers, "features-backfill"))
        self.topics = topics

    def run(self, handle):
        self.consumer.subscribe(self.topics, on_revoke=lambda c, p: c.commit(asynchronous=False))
        while True:
            msg = self.consumer.poll(1.0)
            if msg is not None and not msg.error():
                handle(msg)
