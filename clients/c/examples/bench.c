/*
 * bench — Health/Check round trips from the C client, pipelined:
 *   bench [--host H] [--port P] [--calls N] [--depth D]
 * Keeps D calls in flight on one connection until N calls are answered, then prints the rate and
 * latency percentiles (ghz/wrk style). A measurement program, not a test.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pushwire_client.h"
#include "pushwire/v1/health.pb-c.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    const char *host = "127.0.0.1";
    long port = 7355, calls = 100000, depth = 16;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--host") == 0) host = argv[i + 1];
        else if (strcmp(argv[i], "--port") == 0) port = strtol(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--calls") == 0) calls = strtol(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--depth") == 0) depth = strtol(argv[i + 1], NULL, 10);
        else { fprintf(stderr, "usage: %s [--host H] [--port P] [--calls N] [--depth D]\n", argv[0]); return 64; }
    }
    if (calls <= 0 || depth <= 0 || depth > 4096 || port <= 0 || port > 65535) return 64;
    pw_conn *conn = NULL;
    int rc = pw_connect(host, (uint16_t)port, 5000, &conn);
    if (rc != PW_OK) { fprintf(stderr, "connect: %s\n", pw_strerror(rc)); return 2; }
    Pushwire__V1__HealthCheckRequest req = PUSHWIRE__V1__HEALTH_CHECK_REQUEST__INIT;
    double *latency = malloc((size_t)calls * sizeof *latency);
    uint32_t *ids = malloc((size_t)depth * sizeof *ids);
    double *started = malloc((size_t)depth * sizeof *started);
    if (!latency || !ids || !started) return 1;
    long sent = 0, done = 0, errors = 0;
    double t0 = now_s();
    /* A ring of `depth` calls: always collect the oldest, then refill its slot. */
    for (; sent < depth && sent < calls; sent++) {
        started[sent] = now_s();
        if (pw_send(conn, "/pushwire.v1.Health/Check", &req.base, 5000, NULL, 0, &ids[sent]) != PW_OK) return 2;
    }
    while (done < calls) {
        long slot = done % depth;
        ProtobufCMessage *resp = NULL;
        pw_status st;
        rc = pw_recv(conn, ids[slot], NULL, 10000, &resp, &st);
        if (rc != PW_OK) { fprintf(stderr, "recv: %s\n", pw_strerror(rc)); return 2; }
        if (st.code != 0) errors++;
        latency[done++] = now_s() - started[slot];
        if (sent < calls) {
            started[slot] = now_s();
            if (pw_send(conn, "/pushwire.v1.Health/Check", &req.base, 5000, NULL, 0, &ids[slot]) != PW_OK) return 2;
            sent++;
        }
    }
    double elapsed = now_s() - t0;
    qsort(latency, (size_t)calls, sizeof *latency, compare);
    printf("calls=%ld depth=%ld elapsed=%.3fs rps=%.0f errors=%ld\n", calls, depth, elapsed, calls / elapsed, errors);
    printf("latency p50=%.1fus p90=%.1fus p99=%.1fus p99.9=%.1fus\n", latency[calls / 2] * 1e6,
           latency[calls * 9 / 10] * 1e6, latency[calls * 99 / 100] * 1e6, latency[calls * 999 / 1000] * 1e6);
    free(latency);
    free(ids);
    free(started);
    pw_close(conn);
    return errors ? 1 : 0;
}
