package dev.rebalanceguard.oracle;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The only code that knows how Kafka hands a callback its consumer (java/oracle/README.md, "When
 * 4.5.0 ships"). Kafka 4.4: a {@link ConsumerRebalanceListener} with the consumer injected through
 * the constructor, registered with {@code subscribe(topics, listener)}; every callback gets a
 * {@link View} of that consumer, valid while the callback runs, and {@link Script} does the rest.
 * With KIP-1306 (4.5.0) this class implements {@code RebalanceListener}, its callbacks receive
 * the {@code RebalanceConsumer} that {@link View} then wraps, and {@link #register} calls {@code
 * setRebalanceListener(listener)} before {@code subscribe(topics)}.
 */
final class Listener implements ConsumerRebalanceListener {
    /** What a callback may do: KIP-1306's RebalanceConsumer operations the scenarios use. */
    interface View {
        Set<TopicPartition> assignment();

        Set<TopicPartition> paused();

        long position(TopicPartition partition);

        Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions);

        void commitSync();

        void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets);

        void seek(TopicPartition partition, long offset);

        void pause(Collection<TopicPartition> partitions);
    }

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final KafkaConsumer<String, String> consumer;
    private final Script script;

    private Listener(KafkaConsumer<String, String> consumer, Script script) {
        this.consumer = consumer;
        this.script = script;
    }

    /** Subscribes {@code consumer} to {@code topics} with a listener running {@code script}. */
    static void register(KafkaConsumer<String, String> consumer, Collection<String> topics,
                         Script script) {
        consumer.subscribe(topics, new Listener(consumer, script));
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        script.run("assigned", partitions, view());
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        script.run("revoked", partitions, view());
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        script.run("lost", partitions, view());
    }

    private View view() {
        KafkaConsumer<String, String> c = consumer;
        return new View() {
            @Override
            public Set<TopicPartition> assignment() {
                return c.assignment();
            }

            @Override
            public Set<TopicPartition> paused() {
                return c.paused();
            }

            @Override
            public long position(TopicPartition partition) {
                return c.position(partition, TIMEOUT);
            }

            @Override
            public Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions) {
                return c.committed(partitions, TIMEOUT);
            }

            @Override
            public void commitSync() {
                c.commitSync(TIMEOUT);
            }

            @Override
            public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
                c.commitSync(offsets, TIMEOUT);
            }

            @Override
            public void seek(TopicPartition partition, long offset) {
                c.seek(partition, offset);
            }

            @Override
            public void pause(Collection<TopicPartition> partitions) {
                c.pause(partitions);
            }
        };
    }
}
