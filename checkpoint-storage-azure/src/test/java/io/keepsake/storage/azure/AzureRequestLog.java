package io.keepsake.storage.azure;

import com.azure.core.http.HttpHeaderName;
import com.azure.core.http.HttpPipelineCallContext;
import com.azure.core.http.HttpPipelineNextPolicy;
import com.azure.core.http.HttpPipelineNextSyncPolicy;
import com.azure.core.http.HttpRequest;
import com.azure.core.http.HttpResponse;
import com.azure.core.http.policy.HttpPipelinePolicy;
import io.keepsake.fixtures.cost.TimedRequest;
import reactor.core.publisher.Mono;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Every HTTP request (each try) an Azure client sends, with the thread that sent it, when it
 * started and ended, and its body length, for tests that count what an operation costs. A
 * pipeline policy per try. Thread-safe.
 */
final class AzureRequestLog implements HttpPipelinePolicy {

    /** One request: method, what it was, thread, start and end ({@link System#nanoTime()}), body bytes. */
    record Request(String method, String what, String thread, long start, long end, long length) implements TimedRequest {

        @Override
        public String toString() {
            return method + " " + what + " (" + thread + ")";
        }
    }

    private final String prefix;
    private final List<Request> requests = new ArrayList<>();

    /** A log of requests in {@code container} of the emulator's account. */
    AzureRequestLog(String account, String container) {
        this.prefix = "/" + account + "/" + container + "/";
    }

    @Override
    public Mono<HttpResponse> process(HttpPipelineCallContext context, HttpPipelineNextPolicy next) {
        long start = System.nanoTime();
        String thread = Thread.currentThread().getName();
        HttpRequest r = context.getHttpRequest();
        // logged before the response (or error) reaches the caller, so that a request the caller waited
        // for has ended by the time the caller takes its next reading of the clock
        return next.process().doOnSuccess(response -> record(r, thread, start))
                .doOnError(error -> record(r, thread, start));
    }

    @Override
    public HttpResponse processSync(HttpPipelineCallContext context, HttpPipelineNextSyncPolicy next) {
        long start = System.nanoTime();
        String thread = Thread.currentThread().getName();
        HttpRequest r = context.getHttpRequest();
        try {
            return next.processSync();
        } finally {
            record(r, thread, start);
        }
    }

    private void record(HttpRequest r, String thread, long start) {
        String length = r.getHeaders().getValue(HttpHeaderName.CONTENT_LENGTH);
        Request logged = new Request(r.getHttpMethod().name(), describe(r), thread, start, System.nanoTime(),
                length == null ? 0 : Long.parseLong(length));
        synchronized (requests) {
            requests.add(logged);
        }
    }

    /** Every request so far, in start order. */
    List<Request> all() {
        synchronized (requests) {
            return requests.stream().sorted(Comparator.comparingLong(Request::start)).toList();
        }
    }

    /** The requests that started at or after {@code from} and ended at or before {@code to}, in start order. */
    List<Request> within(long from, long to) {
        return all().stream().filter(r -> r.start() >= from && r.end() <= to).toList();
    }

    /** The blob name (without account and container) and what the query and conditions say. */
    private String describe(HttpRequest r) {
        String path = URLDecoder.decode(r.getUrl().getPath(), StandardCharsets.UTF_8);
        String name = path.startsWith(prefix) ? path.substring(prefix.length()) : path;
        String query = r.getUrl().getQuery() == null ? "" : URLDecoder.decode(r.getUrl().getQuery(), StandardCharsets.UTF_8);
        StringBuilder b = new StringBuilder();
        if (query.contains("comp=list")) {
            b.append("list ");
            for (String q : query.split("&")) {
                if (q.startsWith("prefix=") || q.startsWith("maxresults=")) {
                    b.append(q).append(' ');
                }
            }
            return b.toString().trim();
        }
        b.append(name);
        if (query.contains("comp=blocklist")) {
            b.append(" (block list)");
        } else if (query.contains("comp=block")) {
            b.append(" (block)");
        }
        if (r.getHeaders().getValue(HttpHeaderName.IF_NONE_MATCH) != null) {
            b.append(" If-None-Match");
        }
        return b.toString();
    }
}
