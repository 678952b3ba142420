import asyncio
import json
import logging

import httpx
from aiokafka import AIOKafkaConsumer

from .rebalance import CommitOnly, DrainAndCommit
from .settings import settings

log = logging.getLogger(__name__)


async def deliver(client, hook):
    for attempt in range(5):
        try:
            r = await client.post(hook["url"], json=hook["payload"], timeout=settings.request_timeout_s)
            if r.status_code < 500:
                return r.status_code
        except httpx.HTTPError as exc:
            log.warning("delivery to %s failed: %s", hook["url"], exc)
        await asyncio.sleep(2 ** attempt)
    log.error("giving up on %s", hook["url"])


async def relay():
    consumer = AIOKafkaConsumer(
        bootstrap_servers=settings.kafka_brokers,
        group_id=settings.group_id,
        enable_auto_commit=False,
    )
    inflight = set()
    consumer.subscribe(settings.topics, listener=DrainAndCommit(consumer, inflight))
    await consumer.start()
    try:
        async with httpx.AsyncClient() as client:
            async for msg in consumer:
                while len(inflight) >= settings.max_in_flight:
                    await asyncio.wait(inflight, return_when=asyncio.FIRST_COMPLETED)
                task = asyncio.create_task(deliver(client, json.loads(msg.value)))
                inflight.add(task)
                task.add_done_callback(inflight.discard)
    finally:
        await consumer.stop()


async def retry_relay():
    consumer = AIOKafkaConsumer(
        bootstrap_servers=settings.kafka_brokers,
        group_id=settings.group_id + "-retry",
        enable_auto_commit=False,
    )
    consumer.subscribe(["webhooks.retry"], listener=CommitOnly(consumer))
    await consumer.start()
    try:
        async with httpx.AsyncClient() as client:
            while True:
                batch = await consumer.getmany(timeout_ms=1000, max_records=50)
                for records in batch.values():
                    await asyncio.gather(*(deliver(client, json.loads(r.value)) for r in records))
                await consumer.commit()
    finally:
        await consumer.stop()


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    asyncio.run(relay())
