import asyncio
import logging

from aiokafka.abc import ConsumerRebalanceListener

log = logging.getLogger(__name__)


class DrainAndCommit(ConsumerRebalanceListener):
    def __init__(self, consumer, inflight):
        self.consumer = consumer
        self.inflight = inflight

    async def on_partitions_revoked(self, revoked):
        if self.inflight:
            log.info("waiting for %d deliveries before revoke", len(self.inflight))
            await asyncio.wait(self.inflight, timeout=30)
        await self.consumer.commit()

    def on_partitions_assigned(self, assigned):
        log.info("assigned %s", sorted(tp.partition for tp in assigned))


class CommitOnly(ConsumerRebalanceListener):
    """Used by the retry relay; it never has deliveries in flight across a poll."""

    def __init__(self, consumer):
        self.consumer = consumer

    def on_partitions_revoked(self, revoked):
        return self.consumer.commit()

    def on_partitions_assigned(self, assigned):
        pass
