from kafka import ConsumerRebalanceListener


class CommitOnRevoke(ConsumerRebalanceListener):
    """Commits what was processed before the partitions move (consumer injected)."""

    def __init__(self, consumer, log):
        self.consumer = consumer
        self.log = log

    def on_partitions_revoked(self, revoked):
        self.log.append(("revoked", sorted(revoked)))
        self.consumer.commit()

    def on_partitions_assigned(self, assigned):
        self.log.append(("assigned", sorted(assigned)))
