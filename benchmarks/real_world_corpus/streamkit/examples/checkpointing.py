"""Example from the streamkit README: commit on revoke with a framework-injected stream."""
import logging

from kafka import ConsumerRebalanceListener, OffsetAndMetadata, TopicPartition

from streamkit import Stream

log = logging.getLogger(__name__)


class CheckpointListener(ConsumerRebalanceListener):
    stream = None  # set by Stream

    def on_partitions_revoked(self, revoked):
        log.info("checkpointing before losing %s", revoked)
        self.stream.checkpoint()

    def on_partitions_assigned(self, assigned):
        for tp in assigned:
            log.info("resuming %s at %s", tp, self.stream.consumer.position(tp))


def main():
    stream = Stream(["events"], rebalance_listener=CheckpointListener(),
                    bootstrap_servers="localhost:9092", group_id="checkpoint-example")
    for record in stream:
        tp = TopicPartition(record.topic, record.partition)
        stream.offsets[tp] = OffsetAndMetadata(record.offset + 1, None)
        if record.offset % 100 == 0:
            stream.checkpoint()


if __name__ == "__main__":
    main()
