import json
import logging

import kafka
from opensearchpy import OpenSearch, helpers

from .listeners import IndexRebalanceListener
from .offsets import OffsetManager

log = logging.getLogger(__name__)


class BulkIndexer:
    def __init__(self, client, index):
        self.client = client
        self.index = index
        self.actions = []

    def add(self, doc_id, doc):
        self.actions.append({"_index": self.index, "_id": doc_id, "_source": doc})

    def flush(self):
        if self.actions:
            helpers.bulk(self.client, self.actions)
            self.actions = []


def main(brokers, topic, opensearch_url, index="products"):
    consumer = kafka.KafkaConsumer(
        bootstrap_servers=brokers,
        group_id="search-indexer",
        enable_auto_commit=False,
        value_deserializer=lambda v: json.loads(v.decode("utf-8")),
    )
    offsets = OffsetManager(consumer)
    bulk = BulkIndexer(OpenSearch([opensearch_url]), index)
    consumer.subscribe([topic], listener=IndexRebalanceListener(consumer, offsets, bulk))
    for record in consumer:
        bulk.add(record.key.decode(), record.value)
        offsets.mark(record.topic, record.partition, record.offset)
        if len(bulk.actions) >= 500:
            bulk.flush()
            offsets.commit_offsets()
