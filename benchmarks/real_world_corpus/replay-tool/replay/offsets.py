import logging

from confluent_kafka import OFFSET_BEGINNING, OFFSET_END

log = logging.getLogger(__name__)


def reset(consumer, partitions, from_beginning):
    """Rewind (or fast-forward) every newly assigned partition, then assign."""
    for p in partitions:
        p.offset = OFFSET_BEGINNING if from_beginning else OFFSET_END
    log.info("resetting %d partitions to %s", len(partitions), "beginning" if from_beginning else "end")
    consumer.assign(partitions)


def seek_to_time(timestamp_ms, consumer, partitions):
    for p in partitions:
        p.offset = timestamp_ms
    resolved = consumer.offsets_for_times(partitions, timeout=10)
    consumer.assign(resolved)
