"""Click-stream ingestion with confluent-kafka."""

from confluent_kafka import OFFSET_BEGINNING, Consumer

from ingest.transform import to_row

REPLAY = False


def on_assign(consumer, partitions):
    if REPLAY:
        for p in partitions:
            p.offset = OFFSET_BEGINNING
        consumer.assign(partitions)


def on_revoke(consumer, partitions):
    consumer.commit()


def main() -> None:
    consumer = Consumer({
        "bootstrap.servers": "kafka:9092",
        "group.id": "analytics-ingest",
        "enable.auto.commit": False,
    })
    consumer.subscribe(["clicks"], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_revoke)
    while True:
        msg = consumer.poll(1.0)
        if msg is None or msg.error():
            continue
        print(to_row(msg.value()))
