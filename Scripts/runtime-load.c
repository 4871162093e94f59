// runtime-load: the small C load generator behind the server figures in docs/RUNTIME.md, until
// pushwire-bench covers the same runs. Build: cc -O2 -o /tmp/runtime-load Scripts/runtime-load.c -lpthread
// Run: /tmp/runtime-load <port> <connections> <depth> <seconds>  (127.0.0.1 only)
// Tiny Pushwire load generator (redis-benchmark style): C connections, each sending batches of P
// Health/Check requests in one write and waiting for all P responses. Prints rps and latency.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int port, conns, depth; static double seconds;
static long totals[256]; static double *lat[256]; static long latn[256];
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

static int readn(int fd, unsigned char *b, int n) { int g = 0; while (g < n) { int r = read(fd, b + g, n - g); if (r <= 0) return -1; g += r; } return 0; }

static void *worker(void *arg) {
    long idx = (long)arg;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0}; a.sin_family = AF_INET; a.sin_port = htons(port); a.sin_addr.s_addr = htonl(0x7f000001);
    if (connect(fd, (void *)&a, sizeof a)) { perror("connect"); exit(1); }
    int one = 1; setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    write(fd, "PWIRE/1\n", 8);
    unsigned char hdr[8]; if (readn(fd, hdr, 8)) exit(2);
    unsigned char lenb[4]; readn(fd, lenb, 4); int sl = (lenb[0]<<24)|(lenb[1]<<16)|(lenb[2]<<8)|lenb[3];
    unsigned char tmp[4096]; readn(fd, tmp, sl);
    const char *m = "/pushwire.v1.Health/Check"; int ml = strlen(m);
    unsigned char batch[64 * 64]; int bl = 0;
    for (int i = 0; i < depth; i++) {
        int flen = 2 + 2 + 2 + ml; unsigned char *p = batch + bl;
        p[0] = 0; p[1] = 0; p[2] = 0; p[3] = flen; p += 4;
        *p++ = 0x08; *p++ = (unsigned char)(i + 1);
        *p++ = 0x12; *p++ = 2 + ml; *p++ = 0x0A; *p++ = ml; memcpy(p, m, ml); p += ml;
        bl = p - batch;
    }
    static __thread unsigned char in[1 << 16];
    long done = 0; double end = now() + seconds; long cap = 4000000; lat[idx] = malloc(sizeof(double) * cap);
    while (now() < end) {
        double t0 = now();
        if (write(fd, batch, bl) != bl) exit(3);
        int got = 0, have = 0;
        while (got < depth) {
            int r = read(fd, in + have, sizeof in - have); if (r <= 0) { fprintf(stderr, "closed\n"); exit(4); }
            have += r; int off = 0;
            while (have - off >= 4) { int fl = (in[off]<<24)|(in[off+1]<<16)|(in[off+2]<<8)|in[off+3]; if (have - off < 4 + fl) break; off += 4 + fl; got++; }
            memmove(in, in + off, have - off); have -= off;
        }
        double t1 = now(); if (latn[idx] < cap) lat[idx][latn[idx]++] = t1 - t0;
        done += depth;
    }
    totals[idx] = done; close(fd); return NULL;
}
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
    port = atoi(argv[1]); conns = atoi(argv[2]); depth = atoi(argv[3]); seconds = atof(argv[4]);
    pthread_t t[256]; double s = now();
    for (long i = 0; i < conns; i++) pthread_create(&t[i], 0, worker, (void *)i);
    long total = 0; for (int i = 0; i < conns; i++) { pthread_join(t[i], 0); total += totals[i]; }
    double el = now() - s;
    long n = 0; for (int i = 0; i < conns; i++) n += latn[i];
    double *all = malloc(sizeof(double) * n); long k = 0; for (int i = 0; i < conns; i++) for (long j = 0; j < latn[i]; j++) all[k++] = lat[i][j];
    qsort(all, n, sizeof(double), cmp);
    printf("conns=%d depth=%d calls=%ld rps=%.0f batch-latency p50=%.1fus p99=%.1fus\n", conns, depth, total, total / el, all[n/2]*1e6, all[(long)(n*0.99)]*1e6);
    return 0;
}
