import logging

import kafka

log = logging.getLogger(__name__)


class OffsetManager:
    """Tracks the highest processed offset per partition and commits it on demand."""

    def __init__(self, consumer):
        self.consumer = consumer
        self.processed = {}

    def mark(self, topic, partition, offset):
        self.processed[kafka.TopicPartition(topic, partition)] = offset

    def commit_offsets(self, partitions=None):
        offsets = {
            tp: kafka.OffsetAndMetadata(off + 1, None)
            for tp, off in self.processed.items()
            if partitions is None or tp in partitions
        }
        if not offsets:
            return
        self.consumer.commit(offsets)
        for tp in offsets:
            self.processed.pop(tp, None)
        log.info("committed %s", {f"{tp.topic}-{tp.partition}": o.offset for tp, o in offsets.items()})
