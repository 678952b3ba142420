"""Per-tenant throttling: pauses a partition while its tenant is over quota."""
import asyncio
import logging
import time

from confluent_kafka import TopicPartition
from confluent_kafka.aio import AIOConsumer

log = logging.getLogger(__name__)


class ThrottledDispatcher:
    def __init__(self, conf, topic, sender, quota_per_s=100):
        self.consumer = AIOConsumer(conf)
        self.topic = topic
        self.sender = sender
        self.quota = quota_per_s
        self.paused_until = {}

    async def _on_assign(self, consumer, partitions):
        await consumer.incremental_assign(partitions)
        still_paused = [p for p in partitions if self.paused_until.get(p.partition, 0) > time.time()]
        if still_paused:
            await consumer.pause(still_paused)

    async def _on_revoke(self, consumer, partitions):
        for p in partitions:
            self.paused_until.pop(p.partition, None)
        await consumer.commit(asynchronous=False)
        await consumer.incremental_unassign(partitions)

    async def run(self):
        await self.consumer.subscribe([self.topic], on_assign=self._on_assign, on_revoke=self._on_revoke)
        sent = {}
        while True:
            msg = await self.consumer.poll(0.5)
            now = time.time()
            for part, until in list(self.paused_until.items()):
                if until <= now:
                    tp = [p for p in await self.consumer.assignment() if p.partition == part]
                    await self.consumer.resume(tp)
                    del self.paused_until[part]
            if msg is None or msg.error():
                continue
            window = sent.setdefault(msg.partition(), [])
            window[:] = [t for t in window if now - t < 1] + [now]
            if len(window) > self.quota:
                tps = [p for p in await self.consumer.assignment() if p.partition == msg.partition()]
                await self.consumer.pause(tps)
                self.paused_until[msg.partition()] = now + 1
                await self.consumer.seek(TopicPartition(msg.topic(), msg.partition(), msg.offset()))
                continue
            await self.sender.send(msg.value())
            await asyncio.sleep(0)
