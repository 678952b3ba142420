"""kafka-python 3 rebalance listeners.

kafka-python 3 runs the coordinator on its own IO loop; the async listener is awaited there so
the heartbeat keeps going while we flush to ClickHouse.
"""
import logging
from typing import TYPE_CHECKING

from kafka import AsyncConsumerRebalanceListener

if TYPE_CHECKING:
    from kafka import KafkaConsumer

    from .store import ClickHouseWriter

log = logging.getLogger(__name__)


class FlushingListener(AsyncConsumerRebalanceListener):
    def __init__(self, consumer: "KafkaConsumer", writer: "ClickHouseWriter"):
        self.consumer = consumer
        self.writer = writer

    async def on_partitions_revoked(self, revoked):
        n = await self.writer.flush()
        log.info("flushed %d rows before revoke of %s", n, revoked)
        self.consumer.commit_async()

    async def on_partitions_assigned(self, assigned):
        log.info("assigned %s", assigned)

    async def on_partitions_lost(self, lost):
        # do not commit: the partitions were already given to another member
        self.writer.rows.clear()
        log.warning("lost %s, dropped buffered rows", lost)
