import asyncio
import json
import logging
import os

from confluent_kafka.aio import AIOConsumer

from .senders import PushSender

log = logging.getLogger(__name__)

CONF = {
    "bootstrap.servers": os.environ.get("KAFKA_BROKERS", "localhost:9092"),
    "group.id": "notification-dispatcher",
    "enable.auto.commit": False,
    "partition.assignment.strategy": "cooperative-sticky",
}

in_flight = {}


async def on_assign(consumer, partitions):
    log.info("assigned %s", [p.partition for p in partitions])
    await consumer.incremental_assign(partitions)


async def on_revoke(consumer, partitions):
    # let the sends for these partitions finish, then commit what was delivered
    pending = [t for (topic, part), tasks in in_flight.items() for t in tasks
               if any(p.topic == topic and p.partition == part for p in partitions)]
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
    await consumer.commit(asynchronous=False)
    await consumer.incremental_unassign(partitions)


async def on_lost(consumer, partitions):
    log.warning("lost %s; not committing, the new owner will redeliver", partitions)


async def dispatch(sender, topic):
    consumer = AIOConsumer(CONF)
    await consumer.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_lost)
    try:
        while True:
            msg = await consumer.poll(1.0)
            if msg is None or msg.error():
                continue
            key = (msg.topic(), msg.partition())
            task = asyncio.create_task(sender.send(json.loads(msg.value())))
            in_flight.setdefault(key, set()).add(task)
            task.add_done_callback(in_flight[key].discard)
    finally:
        await consumer.close()


async def main():
    async with PushSender(os.environ["PUSH_ENDPOINT"], os.environ["PUSH_TOKEN"]) as sender:
        await dispatch(sender, os.environ.get("TOPIC", "notifications"))


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    asyncio.run(main())
