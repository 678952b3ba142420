import asyncio
import json
import logging
import threading

from kafka import KafkaConsumer

from .listeners import FlushingListener
from .store import ClickHouseWriter

log = logging.getLogger(__name__)


def run(brokers, topic, clickhouse_url, table):
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True, name="ch-io").start()
    writer = ClickHouseWriter(clickhouse_url, table)
    consumer = KafkaConsumer(
        bootstrap_servers=brokers,
        group_id=f"clickhouse-{table}",
        enable_auto_commit=False,
        max_poll_records=5000,
    )
    consumer.subscribe([topic], listener=FlushingListener(consumer, writer))
    while True:
        for records in consumer.poll(timeout_ms=1000).values():
            writer.rows.extend(json.dumps(json.loads(r.value)) for r in records)
        if len(writer.rows) >= 50_000:
            writer.flush_blocking(loop)
            consumer.commit()
