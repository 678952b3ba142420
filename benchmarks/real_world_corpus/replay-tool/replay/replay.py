import argparse
import datetime
import functools
import logging
import sys

from confluent_kafka import Consumer

from .offsets import reset, seek_to_time

log = logging.getLogger("replay")


def parse_args(argv):
    p = argparse.ArgumentParser()
    p.add_argument("topic")
    p.add_argument("--brokers", default="localhost:9092")
    p.add_argument("--group", required=True)
    p.add_argument("--from-beginning", action="store_true")
    p.add_argument("--since", help="ISO timestamp to replay from")
    p.add_argument("--limit", type=int, default=0)
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv if argv is not None else sys.argv[1:])
    logging.basicConfig(level=logging.INFO)
    consumer = Consumer({"bootstrap.servers": args.brokers, "group.id": args.group, "enable.auto.commit": True})
    if args.since:
        ts = int(datetime.datetime.fromisoformat(args.since).timestamp() * 1000)
        consumer.subscribe([args.topic], on_assign=functools.partial(seek_to_time, ts))
    else:
        consumer.subscribe([args.topic], on_assign=lambda c, p: reset(c, p, args.from_beginning))
    seen = 0
    try:
        while not args.limit or seen < args.limit:
            msg = consumer.poll(1.0)
            if msg is None or msg.error():
                continue
            sys.stdout.buffer.write(msg.value() + b"\n")
            seen += 1
    finally:
        consumer.close()


class Rewinder:
    """Used by the ops notebook: rewinds a live group to a point in time."""

    def __init__(self, conf, topic):
        self.consumer = Consumer(conf)
        self.topic = topic

    def _rewind(self, when, consumer, partitions):
        log.warning("rewinding %s to %s", [p.partition for p in partitions], when)
        seek_to_time(int(when.timestamp() * 1000), consumer, partitions)

    def start(self, when):
        self.consumer.subscribe([self.topic], on_assign=functools.partial(self._rewind, when))
        return self.consumer


if __name__ == "__main__":
    main()
