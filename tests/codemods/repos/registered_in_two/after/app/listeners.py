from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener


class CommitOnRevoke(RebalanceListener):
    """Commits what was processed before the partitions move (consumer injected)."""

    def __init__(self, log):
        self.log = log

    def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
        self.log.append(("revoked", sorted(revoked)))
        consumer.commit()

    def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
        self.log.append(("assigned", sorted(assigned)))
