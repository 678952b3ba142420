package dev.rebalanceguard.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What one member's callbacks do, read from the scenario (tests/oracle/scenarios/README.md,
 * "Callback actions"), and the trace entry each callback leaves. The Python side of the same
 * format is tests/oracle/runner.py; both write the same JSON.
 */
final class Script {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** The actions {@link #perform} knows (tests/oracle/scenarios/schema.json lists the same). */
    static final List<String> ACTIONS =
            List.of("position", "committed", "commit", "commit_processed", "seek", "pause");

    private final String member;
    private final JsonNode actions; // {"assigned": [...], "revoked": [...], "lost": [...]}
    private final Map<TopicPartition, Long> processed; // the member's next offsets
    private final List<ObjectNode> trace;
    private final LongSupplier clock;
    private final BooleanSupplier closing;
    private final Map<String, Integer> calls = new HashMap<>();

    Script(String member, JsonNode actions, Map<TopicPartition, Long> processed,
           List<ObjectNode> trace, LongSupplier clock, BooleanSupplier closing) {
        this.member = member;
        this.actions = actions;
        this.processed = processed;
        this.trace = trace;
        this.clock = clock;
        this.closing = closing;
    }

    void run(String kind, Collection<TopicPartition> partitions, Listener.View view) {
        ObjectNode entry = NODES.objectNode();
        entry.put("member", member);
        entry.put("kind", kind);
        entry.put("start", clock.getAsLong());
        entry.set("partitions", Run.partitions(partitions));
        entry.set("before", state(view));
        ArrayNode ops = entry.putArray("ops");
        if (!partitions.isEmpty()) {
            int call = calls.merge(kind, 1, Integer::sum);
            for (JsonNode action : actions.path(kind)) {
                if (call > 1 && action.path("first").asBoolean(false)
                        || closing.getAsBoolean() && !action.path("closing").asBoolean(true)) {
                    continue;
                }
                perform(action, chosen(action, partitions), view, ops);
            }
        }
        entry.set("after", state(view));
        entry.put("end", clock.getAsLong());
        trace.add(entry);
    }

    private static List<TopicPartition> chosen(JsonNode action, Collection<TopicPartition> passed) {
        List<TopicPartition> out = new ArrayList<>();
        TreeSet<TopicPartition> sorted = new TreeSet<>(Run.ORDER);
        sorted.addAll(passed);
        for (TopicPartition tp : sorted) {
            if (!action.has("partitions")) {
                out.add(tp);
                continue;
            }
            for (JsonNode n : action.get("partitions")) {
                if (n.asInt() == tp.partition()) {
                    out.add(tp);
                }
            }
        }
        return out;
    }

    private static ObjectNode state(Listener.View view) {
        ObjectNode state = NODES.objectNode();
        state.set("assignment", Run.partitions(view.assignment()));
        state.set("paused", Run.partitions(view.paused()));
        return state;
    }

    private void perform(JsonNode action, List<TopicPartition> tps, Listener.View view,
                         ArrayNode ops) {
        String op = action.isTextual() ? action.asText() : action.path("op").asText();
        switch (op) {
            case "position" -> {
                for (TopicPartition tp : tps) {
                    attempt(ops, op, List.of(tp), () -> NODES.numberNode(view.position(tp)));
                }
            }
            case "committed" -> {
                for (TopicPartition tp : tps) {
                    attempt(ops, op, List.of(tp), () -> {
                        OffsetAndMetadata found = view.committed(Set.of(tp)).get(tp);
                        return found == null ? NODES.nullNode() : NODES.numberNode(found.offset());
                    });
                }
            }
            case "seek" -> {
                long offset = action.path("offset").asLong();
                for (TopicPartition tp : tps) {
                    attempt(ops, op, List.of(tp), () -> {
                        view.seek(tp, offset);
                        return NODES.numberNode(offset);
                    });
                }
            }
            case "commit" -> attempt(ops, op, tps, () -> {
                view.commitSync();
                return NODES.nullNode();
            });
            case "commit_processed" -> attempt(ops, op, tps, () -> {
                Map<TopicPartition, OffsetAndMetadata> offsets = new LinkedHashMap<>();
                for (TopicPartition tp : tps) {
                    Long next = processed.get(tp);
                    if (next != null) {
                        offsets.put(tp, new OffsetAndMetadata(next));
                    }
                }
                view.commitSync(offsets);
                return Run.offsets(offsets.keySet(), tp -> offsets.get(tp).offset());
            });
            case "pause" -> attempt(ops, op, tps, () -> {
                view.pause(tps);
                return NODES.nullNode();
            });
            default -> throw new IllegalArgumentException("unknown callback action: " + op);
        }
    }

    private interface Call {
        JsonNode call();
    }

    private static void attempt(ArrayNode ops, String op, List<TopicPartition> tps, Call call) {
        ObjectNode entry = ops.addObject();
        entry.put("op", op);
        entry.set("partitions", Run.partitions(tps));
        try {
            entry.set("value", call.call());
            entry.put("ok", true);
        } catch (RuntimeException e) {
            entry.put("ok", false);
            entry.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }
}
