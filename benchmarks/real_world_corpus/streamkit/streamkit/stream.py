import collections
import logging

from kafka.consumer.subscription_state import ConsumerRebalanceListener

from .consumer import TrackedConsumer

log = logging.getLogger(__name__)


class _HookListener(ConsumerRebalanceListener):
    def __init__(self, hooks):
        self.hooks = hooks

    def on_partitions_revoked(self, revoked):
        for hook in self.hooks["revoked"]:
            hook(revoked)

    def on_partitions_assigned(self, assigned):
        for hook in self.hooks["assigned"]:
            hook(assigned)


class Stream:
    """A topic stream. Pass ``rebalance_listener=`` or register hooks with ``@stream.on(...)``."""

    def __init__(self, topics, rebalance_listener=None, **consumer_config):
        self.topics = list(topics)
        self.consumer = TrackedConsumer(enable_auto_commit=False, **consumer_config)
        self.hooks = collections.defaultdict(list)
        self.offsets = {}
        if rebalance_listener is None:
            rebalance_listener = _HookListener(self.hooks)
        else:
            rebalance_listener.stream = self
        self.consumer.subscribe(self.topics, listener=rebalance_listener)

    def on(self, event):
        def register(fn):
            self.hooks[event].append(fn)
            return fn

        return register

    def checkpoint(self):
        if self.offsets:
            self.consumer.commit(self.offsets)
            self.offsets = {}

    def __iter__(self):
        for record in self.consumer:
            yield record
