package dev.rebalanceguard.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One group member: a KafkaConsumer polled by its own thread, as the Python drivers' members
 * are. Everything that touches the consumer runs on that thread (KafkaConsumer is not thread
 * safe): the runner hands it {@link #call commands} between two polls and reads the {@link
 * #owned}/{@link #pausedNow} snapshots taken after each poll.
 */
final class Member {
    final String name;
    final List<ObjectNode> callbacks = Collections.synchronizedList(new ArrayList<>());
    final List<Run.Processed> records = Collections.synchronizedList(new ArrayList<>());
    final List<String> pollErrors = Collections.synchronizedList(new ArrayList<>());
    volatile Set<TopicPartition> owned = Set.of();
    volatile Set<TopicPartition> pausedNow = Set.of();
    volatile Throwable crash;

    private final Run run;
    private final JsonNode spec;
    private final Map<TopicPartition, Long> processed = new ConcurrentHashMap<>();
    private final BlockingQueue<Consumer<KafkaConsumer<String, String>>> commands =
            new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean stopping;
    private KafkaConsumer<String, String> consumer;
    private Script script;

    Member(Run run, String name, JsonNode spec) {
        this.run = run;
        this.name = name;
        this.spec = spec;
        this.thread = new Thread(this::loop, "member-" + name);
        thread.setDaemon(true);
    }

    Member start() {
        thread.start();
        return this;
    }

    private Properties config() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, run.bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, run.group);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, run.group + "-" + name);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, run.timeout("max.poll.interval.ms"));
        switch (run.protocol) {
            case "consumer" -> p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
            case "eager", "cooperative" -> {
                p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
                p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                        run.protocol.equals("eager") ? RangeAssignor.class.getName()
                                : CooperativeStickyAssignor.class.getName());
                p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, run.timeout("session.timeout.ms"));
                p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
                        run.timeout("heartbeat.interval.ms"));
            }
            default -> throw new IllegalArgumentException("unknown protocol " + run.protocol);
        }
        return p;
    }

    private void loop() {
        try {
            consumer = new KafkaConsumer<>(config());
            script = new Script(name, spec.path("callbacks"), processed, callbacks, run::now,
                    () -> stopping);
            Listener.register(consumer, run.subscriptions.get(name), script);
            while (!stopping) {
                Consumer<KafkaConsumer<String, String>> command;
                while ((command = commands.poll()) != null) {
                    command.accept(consumer);
                }
                try {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                        records.add(new Run.Processed(tp, r.offset(), Long.parseLong(r.value())));
                        processed.put(tp, r.offset() + 1);
                    }
                } catch (RuntimeException e) {
                    pollErrors.add(e.getClass().getSimpleName() + ": " + e.getMessage());
                }
                owned = Set.copyOf(consumer.assignment());
                pausedNow = Set.copyOf(consumer.paused());
            }
        } catch (Throwable e) {
            crash = e;
        } finally {
            if (consumer != null) {
                try {
                    consumer.close(); // a graceful leave: the revocation callback runs in here
                } catch (RuntimeException e) {
                    if (crash == null) {
                        crash = e;
                    }
                }
            }
            owned = Set.of();
            pausedNow = Set.of();
        }
    }

    /** Runs {@code command} on the polling thread between two polls and waits for it. */
    void call(Consumer<KafkaConsumer<String, String>> command) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        commands.add(c -> {
            try {
                command.accept(c);
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        });
        while (!done.isDone()) {
            if (crash != null || !thread.isAlive()) {
                throw new IllegalStateException(name + " stopped: " + Run.describe(crash));
            }
            Thread.sleep(20);
        }
        done.get();
    }

    void subscribe(List<String> topics) throws Exception {
        call(c -> Listener.register(c, topics, script));
    }

    void resumeAll() throws Exception {
        call(c -> c.resume(c.assignment()));
    }

    /** Graceful departure: stop polling and close the consumer (it leaves the group). */
    void close() throws InterruptedException {
        stopping = true;
        thread.join(90_000);
        if (thread.isAlive()) {
            throw new IllegalStateException(name + " did not close within 90 s");
        }
    }
}
