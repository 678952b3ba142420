"""Daily digest builder: collects notifications per user and sends one email at 08:00."""
import asyncio
import collections
import json
import logging

from confluent_kafka.aio import AIOConsumer

log = logging.getLogger(__name__)

pending = collections.defaultdict(list)


async def on_revoke_digest(consumer, partitions):
    log.info("digest partitions revoked: %s (keeping %d users buffered)", partitions, len(pending))
    await consumer.commit(asynchronous=False)


async def collect(conf, topic="notifications"):
    consumer = AIOConsumer({**conf, "group.id": "digest-builder", "enable.auto.commit": False})
    await consumer.subscribe([topic], None, on_revoke_digest)
    while True:
        msg = await consumer.poll(1.0)
        if msg is None or msg.error():
            await asyncio.sleep(0)
            continue
        n = json.loads(msg.value())
        pending[n["user_id"]].append(n)
