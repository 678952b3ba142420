import logging

import kafka

log = logging.getLogger(__name__)


class IndexRebalanceListener(kafka.ConsumerRebalanceListener):
    def __init__(self, consumer, offset_manager, bulk_indexer):
        self.consumer = consumer
        self.offset_manager = offset_manager
        self.bulk_indexer = bulk_indexer

    def on_partitions_revoked(self, revoked):
        log.info("revoked: %s", revoked)
        self.bulk_indexer.flush()
        self.offset_manager.commit_offsets(revoked)

    def on_partitions_assigned(self, assigned):
        log.info("assigned: %s", assigned)
        for tp in assigned:
            committed = self.consumer.committed(tp)
            log.debug("%s starts at %s", tp, committed)
