"""Online feature stage: consumes events on a thread pool so the event loop stays free."""
import asyncio
import concurrent.futures
import json
import logging

import redis.asyncio as redis

from .kafka_utils import make_consumer

log = logging.getLogger(__name__)


def on_revoke(consumer, partitions):
    log.info("revoked %s, committing", partitions)
    consumer.commit(asynchronous=False)


def on_assign(consumer, partitions):
    log.info("assigned %s", partitions)


async def run(brokers, topics, redis_url):
    loop = asyncio.get_running_loop()
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="kafka")
    consumer = make_consumer(brokers, "features-online")
    store = redis.from_url(redis_url)
    await loop.run_in_executor(pool, consumer.subscribe, topics, on_assign, on_revoke)
    while True:
        msg = await loop.run_in_executor(pool, consumer.poll, 1.0)
        if msg is None or msg.error():
            continue
        event = json.loads(msg.value())
        await store.hset(f"user:{event['user_id']}", mapping=event["features"])
