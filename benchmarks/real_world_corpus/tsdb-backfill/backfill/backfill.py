"""Reads every partition up to the end offset seen at start, then stops.

A partition that reached its end is paused so the others can catch up; when every partition is
paused the job is done.
"""
import asyncio
import logging
import os

import aiokafka
from aiokafka import AIOKafkaConsumer

from .influx import Influx

log = logging.getLogger(__name__)

consumer = None
end_offsets = {}
finished = set()


class Backfill:
    def __init__(self, topic, influx):
        self.topic = topic
        self.influx = influx

    def make_listener(self, consumer):
        influx = self.influx

        class Listener(aiokafka.ConsumerRebalanceListener):
            async def on_partitions_revoked(self, revoked):
                await consumer.commit()

            async def on_partitions_assigned(self, assigned):
                end_offsets.update(await consumer.end_offsets(list(assigned)))
                log.info("backfilling %s into %s", sorted(tp.partition for tp in assigned), influx.bucket)

        return Listener()

    async def run(self):
        global consumer
        consumer = AIOKafkaConsumer(
            bootstrap_servers=os.environ.get("BROKERS", "localhost:9092"),
            group_id=f"backfill-{self.topic}",
            enable_auto_commit=False,
            auto_offset_reset="earliest",
        )
        consumer.subscribe([self.topic], listener=self.make_listener(consumer))
        await consumer.start()
        try:
            while True:
                batch = await consumer.getmany(timeout_ms=1000, max_records=10_000)
                for tp, records in batch.items():
                    self.influx.write([r.value.decode() for r in records])
                    if records and records[-1].offset + 1 >= end_offsets.get(tp, float("inf")):
                        consumer.pause(tp)
                        finished.add(tp)
                await consumer.commit()
                if end_offsets and finished >= set(end_offsets):
                    log.info("backfill complete")
                    return
        finally:
            await consumer.stop()


class ResetFinished(aiokafka.ConsumerRebalanceListener):
    """Alternative listener: forget finished partitions on revoke (they get re-read)."""

    async def on_partitions_revoked(self, revoked):
        await consumer.commit()
        finished.difference_update(revoked)

    async def on_partitions_assigned(self, assigned):
        pass


def main():
    influx = Influx(os.environ["INFLUX_URL"], os.environ["INFLUX_TOKEN"], "ops", "metrics")
    asyncio.run(Backfill(os.environ.get("TOPIC", "metrics"), influx).run())


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    main()
