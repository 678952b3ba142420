import logging

log = logging.getLogger(__name__)


class RebalanceHandler:
    """Override in your service. Signatures follow confluent-kafka: (consumer, partitions)."""

    def on_assign(self, consumer, partitions):
        log.info("assigned %s", partitions)

    def on_revoke(self, consumer, partitions):
        log.info("revoked %s", partitions)


class CommittingHandler(RebalanceHandler):
    def on_revoke(self, consumer, partitions):
        super().on_revoke(consumer, partitions)
        consumer.commit()
