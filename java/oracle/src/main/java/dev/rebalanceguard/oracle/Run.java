package dev.rebalanceguard.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One scenario instance run step by step (tests/oracle/scenarios/README.md, "Steps"); the
 * Python runner (tests/oracle/runner.py) interprets the same steps with the same waits.
 */
final class Run {
    static final Comparator<TopicPartition> ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** The steps {@link #perform} knows (tests/oracle/scenarios/schema.json lists the same). */
    static final List<String> STEPS =
            List.of("produce", "join", "leave", "subscribe", "stall", "resume", "settle", "drain");

    record Processed(TopicPartition partition, long offset, long value) {}

    final String bootstrap;
    final String group;
    final String protocol;
    final Map<String, List<String>> subscriptions = new ConcurrentHashMap<>();
    private final JsonNode instance;
    private final JsonNode scenario;
    private final Map<String, String> topics = new LinkedHashMap<>(); // alias -> name
    private final Map<String, Integer> partitionCounts = new HashMap<>(); // name -> count
    private final Map<String, Integer> produced = new HashMap<>(); // name -> messages
    private final Map<String, Member> members = new LinkedHashMap<>();
    private final Map<String, Member> active = new LinkedHashMap<>();
    private final long began = System.nanoTime();
    private final ArrayNode checkpoints = NODES.arrayNode();
    private final ArrayNode steps = NODES.arrayNode();
    private final ArrayNode errors = NODES.arrayNode();

    Run(JsonNode instance) {
        this.instance = instance;
        this.scenario = instance.get("scenario");
        this.bootstrap = instance.get("bootstrap").asText();
        this.group = instance.get("group").asText();
        this.protocol = instance.get("protocol").asText();
        instance.get("topics").properties().forEach(e -> {
            String name = e.getValue().asText();
            topics.put(e.getKey(), name);
            partitionCounts.put(name, scenario.get("topics").get(e.getKey()).asInt());
            produced.put(name, 0);
        });
    }

    long now() {
        return (System.nanoTime() - began) / 1_000_000;
    }

    int timeout(String key) {
        return instance.get("timeouts").get(key).asInt();
    }

    private List<String> names(JsonNode aliases) {
        List<String> out = new ArrayList<>();
        aliases.forEach(a -> out.add(topics.get(a.asText())));
        return out;
    }

    ObjectNode execute() {
        try {
            for (JsonNode step : scenario.get("steps")) {
                ObjectNode record = steps.addObject();
                record.set("step", step);
                record.put("start", now());
                perform(step);
                record.put("end", now());
            }
        } catch (Exception e) {
            errors.add(e.getClass().getSimpleName() + ": " + e.getMessage());
        } finally {
            for (Member m : new ArrayList<>(active.values())) {
                try {
                    m.close();
                } catch (Exception e) {
                    errors.add(m.name + " close: " + e);
                }
            }
        }
        return trace();
    }

    private void perform(JsonNode step) throws Exception {
        String what = step.fieldNames().next();
        JsonNode arg = step.get(what);
        switch (what) {
            case "produce" -> produce(topics.get(arg.get("topic").asText()), arg.get("count").asInt());
            case "join" -> {
                String name = arg.asText();
                JsonNode spec = scenario.get("members").get(name);
                subscriptions.put(name, names(spec.get("topics")));
                Member m = new Member(this, name, spec);
                members.put(name, m);
                active.put(name, m.start());
            }
            case "leave" -> {
                Member m = active.get(arg.asText());
                m.close();
                active.remove(m.name);
                if (m.crash != null) {
                    throw new IllegalStateException(m.name + " crashed: " + describe(m.crash));
                }
            }
            case "subscribe" -> {
                String name = arg.get("member").asText();
                subscriptions.put(name, names(arg.get("topics")));
                active.get(name).subscribe(subscriptions.get(name));
            }
            case "resume" -> active.get(arg.asText()).resumeAll();
            case "settle" -> settle();
            case "drain" -> waitFor("every produced message processed", this::drained,
                    timeout("step.timeout.ms"));
            case "stall" -> stall(active.get(arg.asText()));
            default -> throw new IllegalArgumentException("unknown step " + what);
        }
    }

    private void produce(String topic, int count) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        int partitions = partitionCounts.get(topic);
        int first = produced.get(topic);
        try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int v = first; v < first + count; v++) {
                producer.send(new ProducerRecord<>(topic, v % partitions, null, Integer.toString(v)));
            }
            producer.flush();
        }
        produced.put(topic, first + count);
    }

    /** Every partition of the active members' topics owned by exactly one active member. */
    private boolean owned(Collection<Member> owners, Set<String> subscribed) {
        Set<TopicPartition> seen = new HashSet<>();
        for (Member m : owners) {
            for (TopicPartition tp : m.owned) {
                if (!seen.add(tp)) {
                    return false;
                }
            }
        }
        Set<TopicPartition> expected = new HashSet<>();
        for (String topic : subscribed) {
            for (int p = 0; p < partitionCounts.get(topic); p++) {
                expected.add(new TopicPartition(topic, p));
            }
        }
        return seen.equals(expected);
    }

    private Set<String> subscribed() {
        Set<String> out = new HashSet<>();
        active.keySet().forEach(name -> out.addAll(subscriptions.get(name)));
        return out;
    }

    private long lastCallback() {
        long last = -1;
        for (Member m : members.values()) {
            synchronized (m.callbacks) {
                for (ObjectNode c : m.callbacks) {
                    last = Math.max(last, c.get("end").asLong());
                }
            }
        }
        return last;
    }

    private void settle() throws Exception {
        long quiet = timeout("settle.quiet.ms");
        long[] since = {-1};
        waitFor("the group to settle", () -> {
            long now = now();
            boolean stable = owned(active.values(), subscribed());
            if (!stable) {
                since[0] = -1;
                return false;
            }
            if (since[0] < 0) {
                since[0] = now;
            }
            return now - since[0] >= quiet && now - lastCallback() >= quiet;
        }, timeout("step.timeout.ms"));
        ObjectNode checkpoint = checkpoints.addObject();
        checkpoint.put("at", now());
        ObjectNode state = checkpoint.putObject("members");
        for (Member m : active.values()) {
            ObjectNode s = state.putObject(m.name);
            s.set("assignment", partitions(m.owned));
            s.set("paused", partitions(m.pausedNow));
        }
    }

    private boolean drained() {
        Map<TopicPartition, Long> next = new HashMap<>();
        for (Member m : members.values()) {
            synchronized (m.records) {
                for (Processed r : m.records) {
                    next.merge(r.partition(), r.offset() + 1, Math::max);
                }
            }
        }
        for (Map.Entry<String, Integer> e : produced.entrySet()) {
            int parts = partitionCounts.get(e.getKey());
            for (int p = 0; p < parts; p++) {
                long want = e.getValue() / parts + (p < e.getValue() % parts ? 1 : 0);
                if (next.getOrDefault(new TopicPartition(e.getKey(), p), 0L) < want) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Past max.poll.interval.ms without a poll, then on until the others own everything. */
    private void stall(Member victim) throws Exception {
        List<Member> others = new ArrayList<>(active.values());
        others.remove(victim);
        Set<String> theirs = new HashSet<>();
        others.forEach(m -> theirs.addAll(subscriptions.get(m.name)));
        long sleep = timeout("max.poll.interval.ms") + timeout("stall.extra.ms");
        long limit = timeout("step.timeout.ms");
        victim.call(c -> {
            try {
                Thread.sleep(sleep);
                waitFor("the others to own every partition", () -> owned(others, theirs), limit);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private void waitFor(String what, BooleanSupplier condition, long limitMs) throws Exception {
        long deadline = now() + limitMs;
        while (!condition.getAsBoolean()) {
            for (Member m : active.values()) {
                if (m.crash != null) {
                    throw new IllegalStateException(m.name + " crashed: " + describe(m.crash));
                }
            }
            if (now() > deadline) {
                throw new IllegalStateException("timed out after " + limitMs + " ms waiting for "
                        + what);
            }
            Thread.sleep(50);
        }
    }

    private ObjectNode trace() {
        ObjectNode trace = NODES.objectNode();
        trace.put("runner", "java");
        trace.put("client", "java");
        trace.put("client_version", kafkaVersion());
        trace.put("scenario", scenario.get("name").asText());
        trace.put("protocol", protocol);
        trace.put("group", group);
        trace.set("topics", instance.get("topics"));
        trace.set("produced", NODES.pojoNode(produced));
        List<ObjectNode> callbacks = new ArrayList<>();
        ObjectNode records = trace.putObject("records");
        ObjectNode pollErrors = trace.putObject("poll_errors");
        for (Member m : members.values()) {
            callbacks.addAll(m.callbacks);
            ArrayNode mine = records.putArray(m.name);
            for (Processed r : m.records) {
                mine.addArray().add(r.partition().topic()).add(r.partition().partition())
                        .add(r.offset()).add(r.value());
            }
            ArrayNode errs = pollErrors.putArray(m.name);
            m.pollErrors.forEach(errs::add);
            if (m.crash != null) {
                errors.add(m.name + " crashed: " + describe(m.crash));
            }
        }
        callbacks.sort(Comparator.comparingLong(c -> c.get("start").asLong()));
        trace.putArray("callbacks").addAll(callbacks);
        trace.set("checkpoints", checkpoints);
        trace.set("steps", steps);
        trace.set("errors", errors);
        return trace;
    }

    /** The exception and its causes, one line. */
    static String describe(Throwable e) {
        StringBuilder out = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            out.append(out.length() == 0 ? "" : " <- ").append(t);
        }
        return out.toString();
    }

    /** kafka-clients' own version (the resource its jar ships; no internal API). */
    private static String kafkaVersion() {
        Properties p = new Properties();
        try (var in = KafkaProducer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (java.io.IOException e) {
            return "unknown";
        }
        return p.getProperty("version", "unknown");
    }

    static ArrayNode partitions(Collection<TopicPartition> tps) {
        ArrayNode out = NODES.arrayNode();
        TreeSet<TopicPartition> sorted = new TreeSet<>(ORDER);
        sorted.addAll(tps);
        sorted.forEach(tp -> out.addArray().add(tp.topic()).add(tp.partition()));
        return out;
    }

    static ArrayNode offsets(Collection<TopicPartition> tps, ToLongFunction<TopicPartition> value) {
        ArrayNode out = NODES.arrayNode();
        TreeSet<TopicPartition> sorted = new TreeSet<>(ORDER);
        sorted.addAll(tps);
        sorted.forEach(tp -> out.addArray().add(tp.topic()).add(tp.partition())
                .add(value.applyAsLong(tp)));
        return out;
    }
}
