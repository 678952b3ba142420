package dev.rebalanceguard.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The conformance oracle's entry point: {@code Oracle INSTANCE.json TRACE.json [INSTANCE.json
 * TRACE.json ...]} runs each scenario instance (a scenario of tests/oracle/scenarios/ with the
 * broker, group, topics and protocol of one run, written by tests/oracle/runner.py) with Apache
 * Kafka's KafkaConsumer, all instances at once (each has its own group and topics), and writes
 * each one's trace. Exit status 0 when every trace was written, even if a run recorded errors
 * (the trace says which); 2 on bad arguments.
 */
public final class Oracle {
    static final ObjectMapper JSON =
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Oracle() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("--format")) { // what this runner reads
            ObjectNode format = JSON.createObjectNode();
            Run.STEPS.forEach(format.putArray("steps")::add);
            Script.ACTIONS.forEach(format.putArray("actions")::add);
            System.out.println(JSON.writeValueAsString(format));
            return;
        }
        if (args.length == 0 || args.length % 2 != 0) {
            System.err.println("usage: Oracle INSTANCE.json TRACE.json [INSTANCE.json TRACE.json ...]");
            System.exit(2);
        }
        ExecutorService pool = Executors.newCachedThreadPool();
        List<Future<?>> runs = new ArrayList<>();
        for (int i = 0; i < args.length; i += 2) {
            JsonNode instance = JSON.readTree(new File(args[i]));
            File out = new File(args[i + 1]);
            runs.add(pool.submit(() -> {
                ObjectNode trace = new Run(instance).execute();
                JSON.writeValue(out, trace);
                return null;
            }));
        }
        for (Future<?> run : runs) {
            run.get();
        }
        pool.shutdown();
    }
}
