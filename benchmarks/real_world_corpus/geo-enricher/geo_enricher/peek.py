"""Debug tool: print what the enricher would see, without committing anything."""
import sys
import uuid

from confluent_kafka import Consumer

topic = sys.argv[1] if len(sys.argv) > 1 else "clicks-raw"
consumer = Consumer({
    "bootstrap.servers": "localhost:9092",
    "group.id": f"peek-{uuid.uuid4()}",
    "enable.auto.commit": False,
})

print_assignment = lambda c, parts: print("assigned:", [p.partition for p in parts], file=sys.stderr)

consumer.subscribe([topic], on_assign=print_assignment)
try:
    while True:
        msg = consumer.poll(1.0)
        if msg is not None and not msg.error():
            print(msg.partition(), msg.offset(), msg.value()[:200])
except KeyboardInterrupt:
    pass
finally:
    consumer.close()
