package io.keepsake.storage.s3;

import io.keepsake.fixtures.cost.TimedRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every HTTP request a client sends, with the thread that sent it and when it started and ended
 * (each retry is a request of its own), for tests that count what an operation costs: how many
 * requests its caller waits for and how many of them must follow one another (the sequential
 * round trips that a store's latency multiplies). Thread-safe.
 */
final class RequestLog implements ExecutionInterceptor {

    /** One request: what it was, on which thread, and its start and end ({@link System#nanoTime()}). */
    record Request(String method, String what, String thread, long start, long end) implements TimedRequest {
    }

    private static final ExecutionAttribute<long[]> START = new ExecutionAttribute<>("keepsake-request-start");
    private static final ExecutionAttribute<String[]> WHAT = new ExecutionAttribute<>("keepsake-request-what");

    private final String bucket;
    private final List<Request> requests = new ArrayList<>();

    RequestLog(String bucket) {
        this.bucket = bucket;
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        SdkHttpRequest r = context.httpRequest();
        attributes.putAttribute(WHAT, new String[] {r.method().name(), describe(r), Thread.currentThread().getName()});
        attributes.putAttribute(START, new long[] {System.nanoTime()});
    }

    @Override
    public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
        record(attributes);
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        record(attributes);
    }

    private void record(ExecutionAttributes attributes) {
        long[] start = attributes.getAttribute(START);
        String[] what = attributes.getAttribute(WHAT);
        if (start == null || what == null) {
            return;
        }
        attributes.putAttribute(START, null);
        synchronized (requests) {
            requests.add(new Request(what[0], what[1], what[2], start[0], System.nanoTime()));
        }
    }

    /** The requests that started at or after {@code from} and ended at or before {@code to}, in start order. */
    List<Request> within(long from, long to) {
        synchronized (requests) {
            return requests.stream().filter(r -> r.start() >= from && r.end() <= to)
                    .sorted(Comparator.comparingLong(Request::start)).toList();
        }
    }

    /** The requests that started at or after {@code from}, in start order. */
    List<Request> since(long from) {
        synchronized (requests) {
            return requests.stream().filter(r -> r.start() >= from)
                    .sorted(Comparator.comparingLong(Request::start)).toList();
        }
    }

    /** The request's key (without the bucket) and what its query and conditions say. */
    private String describe(SdkHttpRequest r) {
        String path = URLDecoder.decode(r.encodedPath(), StandardCharsets.UTF_8);
        String prefix = "/" + bucket + "/";
        String key = path.startsWith(prefix) ? path.substring(prefix.length()) : path;
        Map<String, List<String>> q = new TreeMap<>(r.rawQueryParameters());
        StringBuilder b = new StringBuilder();
        if (q.containsKey("list-type")) {
            b.append("list ").append(q.getOrDefault("prefix", List.of("")).get(0));
            if (q.containsKey("max-keys")) {
                b.append(" max-keys=").append(q.get("max-keys").get(0));
            }
            return b.toString();
        }
        b.append(key);
        if (q.containsKey("uploads")) {
            b.append(" (begin multipart)");
        } else if (q.containsKey("uploadId")) {
            b.append(q.containsKey("partNumber") ? " (part " + q.get("partNumber").get(0) + ")" : " (multipart)");
        } else if (q.containsKey("delete")) {
            b.append(" (batch delete)");
        }
        if (r.firstMatchingHeader("If-None-Match").isPresent()) {
            b.append(" If-None-Match");
        }
        return b.toString();
    }
}
