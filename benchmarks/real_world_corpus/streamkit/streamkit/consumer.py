import logging
import time

from kafka import KafkaConsumer
from kafka.consumer.subscription_state import ConsumerRebalanceListener

log = logging.getLogger(__name__)


class _LagTracker(ConsumerRebalanceListener):
    """Chains to the user's listener after keeping our own lag bookkeeping up to date."""

    def __init__(self, consumer, inner=None):
        self.consumer = consumer
        self.inner = inner

    def on_partitions_revoked(self, revoked):
        for tp in revoked:
            self.consumer.lag.pop(tp, None)
        if self.inner is not None:
            self.inner.on_partitions_revoked(revoked)

    def on_partitions_assigned(self, assigned):
        ends = self.consumer.end_offsets(list(assigned))
        for tp in assigned:
            self.consumer.lag[tp] = ends[tp] - (self.consumer.committed(tp) or 0)
        if self.inner is not None:
            self.inner.on_partitions_assigned(assigned)


class TrackedConsumer(KafkaConsumer):
    def __init__(self, *topics, **configs):
        super().__init__(*topics, **configs)
        self.lag = {}
        self.created = time.time()

    def subscribe(self, topics=(), pattern=None, listener=None):
        return super().subscribe(topics, pattern, _LagTracker(self, listener))
