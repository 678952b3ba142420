import logging
import time

from confluent_kafka import KafkaException, TopicPartition

log = logging.getLogger(__name__)

MAX_RETRIES = 5


def commit_all(consumer, pending):
    """Commit every pending offset synchronously, retrying on transient errors."""
    if not pending:
        return
    offsets = [TopicPartition(t, p, o + 1) for (t, p), o in pending.items()]
    for attempt in range(1, MAX_RETRIES + 1):
        try:
            consumer.commit(offsets=offsets, asynchronous=False)
            pending.clear()
            return
        except KafkaException as exc:
            log.warning("commit attempt %d/%d failed: %s", attempt, MAX_RETRIES, exc)
            time.sleep(15)
    log.error("giving up committing %s", offsets)
