import gzip
import logging
import os
import time

from confluent_kafka import OFFSET_BEGINNING, Consumer

from . import settings
from .storage import OffsetStore

logger = logging.getLogger("clickstream.sink")


class ClickstreamSink(object):
    def __init__(self):
        self.__consumer = Consumer(settings.KAFKA)
        self.__offsets = OffsetStore(settings.OUTPUT_DIR)
        self.__files = {}
        self.__counts = {}

    def __on_assign(self, consumer, partitions):
        for p in partitions:
            stored = self.__offsets.get(p.topic, p.partition)
            p.offset = stored + 1 if stored is not None else OFFSET_BEGINNING
        logger.info("starting from %s", [(p.partition, p.offset) for p in partitions])
        consumer.assign(partitions)

    def __on_revoke(self, consumer, partitions):
        for p in partitions:
            self.__roll(p.partition)
        consumer.unassign()

    def __file_for(self, partition):
        if partition not in self.__files:
            name = os.path.join(settings.OUTPUT_DIR, f"clicks-{partition}-{int(time.time())}.jsonl.gz")
            self.__files[partition] = (name, gzip.open(name, "wt"))
            self.__counts[partition] = 0
        return self.__files[partition][1]

    def __roll(self, partition, last_offset=None):
        entry = self.__files.pop(partition, None)
        if entry is None:
            return
        entry[1].close()
        if last_offset is not None:
            self.__offsets.put(settings.TOPIC, partition, last_offset)

    def run(self):
        self.__consumer.subscribe([settings.TOPIC], self.__on_assign, self.__on_revoke)
        while True:
            msg = self.__consumer.poll(timeout=1.0)
            if msg is None:
                continue
            if msg.error():
                logger.error("consumer error: %s", msg.error())
                continue
            fh = self.__file_for(msg.partition())
            fh.write(msg.value().decode("utf-8") + "\n")
            self.__counts[msg.partition()] += 1
            if self.__counts[msg.partition()] >= settings.ROLL_EVERY:
                self.__roll(msg.partition(), msg.offset())
