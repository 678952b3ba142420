"""The pre-3.0 loader, still used by the nightly backfill job."""
import json
import logging

from kafka import ConsumerRebalanceListener, KafkaConsumer

log = logging.getLogger(__name__)


class CommitOnRevoke(ConsumerRebalanceListener):
    def __init__(self, consumer, writer, loop):
        self.consumer = consumer
        self.writer = writer
        self.loop = loop

    def on_partitions_revoked(self, revoked):
        self.writer.flush_blocking(self.loop)
        self.consumer.commit()

    def on_partitions_assigned(self, assigned):
        for tp in assigned:
            log.info("%s resumes at %s", tp, self.consumer.position(tp))

    def on_partitions_lost(self, lost):
        log.warning("lost %s", lost)


def backfill(brokers, topic, writer, loop, until_offset):
    consumer = KafkaConsumer(bootstrap_servers=brokers, group_id="clickhouse-backfill", enable_auto_commit=False)
    consumer.subscribe(topics=[topic], listener=CommitOnRevoke(consumer, writer, loop))
    for record in consumer:
        writer.rows.append(json.dumps(json.loads(record.value)))
        if record.offset >= until_offset:
            break
    writer.flush_blocking(loop)
    consumer.commit()
    consumer.close()
