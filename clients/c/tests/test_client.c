/*
 * The connection against a scripted fake server (a forked child on 127.0.0.1): preface and
 * Settings, pipelined calls answered out of order, metadata, error statuses, Ping both ways,
 * local timeout → Cancel, the send-size limit, GoAway, a bad preface; and the frame reader's
 * edge cases. The child checks what the client sent and exits with its failure count.
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pushwire_client.h"
#include "pw_internal.h"
#include "pw_test.h"
#include "pushwire/v1/health.pb-c.h"
#include "pushwire/v1/reflection.pb-c.h"

/* ---------------- the fake server (child process) ---------------- */

static int child_failures;
#define EXPECT(cond) do { if (!(cond)) { child_failures++; fprintf(stderr, "server: %s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

static Pushwire__V1__Frame *srv_read(int fd, pw_reader *r) {
    for (;;) {
        Pushwire__V1__Frame *f = NULL;
        if (pw_reader_next(r, &f) != PW_OK) return NULL;
        if (f) return f;
        uint8_t chunk[4096];
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n <= 0) return NULL;
        pw_reader_append(r, chunk, (size_t)n);
    }
}

static void srv_send(int fd, Pushwire__V1__Frame *f) {
    uint8_t *buf = NULL;
    size_t len = 0;
    if (pw_frame_encode(f, PW_DEFAULT_MAX_FRAME_SIZE, &buf, &len) == PW_OK) {
        EXPECT(write(fd, buf, len) == (ssize_t)len);
    }
    free(buf);
}

static void srv_answer(int fd, uint32_t call_id, uint32_t code, const char *message,
                       const ProtobufCMessage *body) {
    Pushwire__V1__Status status = PUSHWIRE__V1__STATUS__INIT;
    status.code = code;
    status.message = (char *)message;
    Pushwire__V1__Response response = PUSHWIRE__V1__RESPONSE__INIT;
    response.status = &status;
    uint8_t packed[1024];
    if (body) {
        response.message.len = protobuf_c_message_pack(body, packed);
        response.message.data = packed;
    }
    Pushwire__V1__Frame f = PUSHWIRE__V1__FRAME__INIT;
    f.call_id = call_id;
    f.kind_case = PUSHWIRE__V1__FRAME__KIND_RESPONSE;
    f.response = &response;
    srv_send(fd, &f);
}

static void srv_ping_kind(int fd, int pong, uint64_t payload) {
    Pushwire__V1__Ping ping = PUSHWIRE__V1__PING__INIT;
    Pushwire__V1__Pong pg = PUSHWIRE__V1__PONG__INIT;
    ping.payload = pg.payload = payload;
    Pushwire__V1__Frame f = PUSHWIRE__V1__FRAME__INIT;
    if (pong) { f.kind_case = PUSHWIRE__V1__FRAME__KIND_PONG; f.pong = &pg; }
    else { f.kind_case = PUSHWIRE__V1__FRAME__KIND_PING; f.ping = &ping; }
    srv_send(fd, &f);
}

static void scripted_server(int fd) {
    pw_reader r = { .max_frame_size = PW_DEFAULT_MAX_FRAME_SIZE };
    uint8_t preface[8];
    EXPECT(read(fd, preface, 8) == 8 && memcmp(preface, PW_PREFACE, 8) == 0);
    EXPECT(write(fd, PW_PREFACE, 8) == 8);
    Pushwire__V1__Settings settings = PUSHWIRE__V1__SETTINGS__INIT;
    settings.max_frame_size = 1024;
    settings.max_concurrent_calls = 8;
    settings.server_name = "fake";
    settings.server_version = "9.9";
    settings.protocol_version = 1;
    Pushwire__V1__Frame sf = PUSHWIRE__V1__FRAME__INIT;
    sf.kind_case = PUSHWIRE__V1__FRAME__KIND_SETTINGS;
    sf.settings = &settings;
    srv_send(fd, &sf);

    /* 1. Two pipelined calls, answered in reverse order. */
    Pushwire__V1__Frame *a = srv_read(fd, &r), *b = srv_read(fd, &r);
    EXPECT(a && b && a->kind_case == PUSHWIRE__V1__FRAME__KIND_REQUEST && b->kind_case == PUSHWIRE__V1__FRAME__KIND_REQUEST);
    if (a && b && a->kind_case == PUSHWIRE__V1__FRAME__KIND_REQUEST && b->kind_case == PUSHWIRE__V1__FRAME__KIND_REQUEST) {
        EXPECT(strcmp(a->request->method, "/pushwire.v1.Health/Check") == 0);
        EXPECT(a->request->timeout_ms == 3000);
        EXPECT(a->call_id != 0 && b->call_id != 0 && a->call_id != b->call_id);
        EXPECT(b->request->n_metadata == 2);
        Pushwire__V1__MethodInfo info = PUSHWIRE__V1__METHOD_INFO__INIT;
        Pushwire__V1__MethodInfo *infos[1] = { &info };
        info.path = b->request->n_metadata == 2 ? b->request->metadata[1]->value : "";
        Pushwire__V1__ListMethodsResponse list = PUSHWIRE__V1__LIST_METHODS_RESPONSE__INIT;
        list.n_methods = 1;
        list.methods = infos;
        srv_answer(fd, b->call_id, 0, "", &list.base);
        Pushwire__V1__HealthCheckRequest *hc = pushwire__v1__health_check_request__unpack(
            NULL, a->request->message.len, a->request->message.data);
        EXPECT(hc && strcmp(hc->service, "pushwire.v1.Devices") == 0);
        if (hc) pushwire__v1__health_check_request__free_unpacked(hc, NULL);
        Pushwire__V1__HealthCheckResponse health = PUSHWIRE__V1__HEALTH_CHECK_RESPONSE__INIT;
        health.status = PUSHWIRE__V1__SERVING_STATUS__SERVING_STATUS_SERVING;
        srv_answer(fd, a->call_id, 0, "", &health.base);
    }
    if (a) pushwire__v1__frame__free_unpacked(a, NULL);
    if (b) pushwire__v1__frame__free_unpacked(b, NULL);

    /* 2. An unknown method. */
    Pushwire__V1__Frame *c = srv_read(fd, &r);
    EXPECT(c && c->kind_case == PUSHWIRE__V1__FRAME__KIND_REQUEST);
    if (c) { srv_answer(fd, c->call_id, 12, "no method /x/y", NULL); pushwire__v1__frame__free_unpacked(c, NULL); }

    /* 3. The client pings; the server pings it first, then answers. */
    Pushwire__V1__Frame *p = srv_read(fd, &r);
    EXPECT(p && p->kind_case == PUSHWIRE__V1__FRAME__KIND_PING && p->call_id == 0);
    srv_ping_kind(fd, 0, 7);
    if (p && p->kind_case == PUSHWIRE__V1__FRAME__KIND_PING) srv_ping_kind(fd, 1, p->ping->payload);
    if (p) pushwire__v1__frame__free_unpacked(p, NULL);
    Pushwire__V1__Frame *pong = srv_read(fd, &r);
    EXPECT(pong && pong->kind_case == PUSHWIRE__V1__FRAME__KIND_PONG && pong->pong->payload == 7);
    if (pong) pushwire__v1__frame__free_unpacked(pong, NULL);

    /* 4. A call left unanswered until the client times out and cancels; then a late answer. */
    Pushwire__V1__Frame *slow = srv_read(fd, &r), *cancel = srv_read(fd, &r);
    EXPECT(slow && cancel && cancel->kind_case == PUSHWIRE__V1__FRAME__KIND_CANCEL);
    EXPECT(slow && cancel && cancel->call_id == slow->call_id);
    if (slow) srv_answer(fd, slow->call_id, 1, "cancelled", NULL);
    if (slow) pushwire__v1__frame__free_unpacked(slow, NULL);
    if (cancel) pushwire__v1__frame__free_unpacked(cancel, NULL);

    /* 5. After the oversized request (never sent), a normal call still works. */
    Pushwire__V1__Frame *after = srv_read(fd, &r);
    EXPECT(after && after->kind_case == PUSHWIRE__V1__FRAME__KIND_REQUEST);
    if (after) { srv_answer(fd, after->call_id, 0, "", NULL); pushwire__v1__frame__free_unpacked(after, NULL); }

    /* 5b. Ten calls against max_concurrent_calls = 8: the client holds back the last two until
     * answers free their slots. */
    Pushwire__V1__Frame *calls[10] = { 0 };
    for (int i = 0; i < 8; i++) calls[i] = srv_read(fd, &r);
    srv_answer(fd, calls[0] ? calls[0]->call_id : 0, 0, "", NULL);
    srv_answer(fd, calls[1] ? calls[1]->call_id : 0, 0, "", NULL);
    for (int i = 8; i < 10; i++) calls[i] = srv_read(fd, &r);
    for (int i = 2; i < 10; i++) srv_answer(fd, calls[i] ? calls[i]->call_id : 0, 0, "", NULL);
    for (int i = 0; i < 10; i++) {
        EXPECT(calls[i] && calls[i]->kind_case == PUSHWIRE__V1__FRAME__KIND_REQUEST);
        if (calls[i]) pushwire__v1__frame__free_unpacked(calls[i], NULL);
    }

    /* 6. Two calls; GoAway promises only the first, answers it, and closes. */
    Pushwire__V1__Frame *d = srv_read(fd, &r), *e = srv_read(fd, &r);
    EXPECT(d && e);
    if (d && e) {
        Pushwire__V1__Status ok = PUSHWIRE__V1__STATUS__INIT;
        Pushwire__V1__GoAway ga = PUSHWIRE__V1__GO_AWAY__INIT;
        ga.last_call_id = d->call_id;
        ga.status = &ok;
        Pushwire__V1__Frame gf = PUSHWIRE__V1__FRAME__INIT;
        gf.kind_case = PUSHWIRE__V1__FRAME__KIND_GO_AWAY;
        gf.go_away = &ga;
        srv_send(fd, &gf);
        srv_answer(fd, d->call_id, 0, "", NULL);
    }
    if (d) pushwire__v1__frame__free_unpacked(d, NULL);
    if (e) pushwire__v1__frame__free_unpacked(e, NULL);
    pw_reader_free(&r);
}

/* Forks a server on an ephemeral port: mode 0 runs the script, mode 1 answers a wrong preface. */
static pid_t start_server(int mode, uint16_t *port) {
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t alen = sizeof addr;
    if (ls < 0 || bind(ls, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(ls, 4) != 0 ||
        getsockname(ls, (struct sockaddr *)&addr, &alen) != 0) {
        perror("fake server");
        exit(2);
    }
    *port = ntohs(addr.sin_port);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20); /* never outlive a hung test */
        int fd = accept(ls, NULL, NULL);
        close(ls);
        struct timeval tv = { .tv_sec = 5 };
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        if (mode == 0) scripted_server(fd);
        else { char pre[8]; (void)!read(fd, pre, 8); (void)!write(fd, "HTTP/1.1 400\r\n\r\n", 16); }
        close(fd);
        _exit(child_failures > 100 ? 100 : child_failures);
    }
    close(ls);
    return pid;
}

static int wait_server(pid_t pid) {
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 99;
}

/* ---------------- the client side ---------------- */

static void test_conversation(void) {
    uint16_t port = 0;
    pid_t pid = start_server(0, &port);
    pw_conn *c = NULL;
    int rc = pw_connect("127.0.0.1", port, 5000, &c);
    CHECK(rc == PW_OK, "connect: %s", pw_strerror(rc));
    if (rc != PW_OK) { kill(pid, SIGKILL); wait_server(pid); return; }
    const Pushwire__V1__Settings *s = pw_settings(c);
    CHECK(s && s->max_frame_size == 1024 && strcmp(s->server_name, "fake") == 0, "settings");

    /* 1. pipelining */
    Pushwire__V1__HealthCheckRequest hreq = PUSHWIRE__V1__HEALTH_CHECK_REQUEST__INIT;
    hreq.service = "pushwire.v1.Devices";
    Pushwire__V1__ListMethodsRequest lreq = PUSHWIRE__V1__LIST_METHODS_REQUEST__INIT;
    pw_metadata md[2] = { { "authorization", "Bearer t0k" }, { "x-echo", "/echo/me" } };
    uint32_t id_a = 0, id_b = 0;
    CHECK(pw_send(c, "/pushwire.v1.Health/Check", &hreq.base, 3000, NULL, 0, &id_a) == PW_OK, "send a");
    CHECK(pw_send(c, "/pushwire.v1.Reflection/ListMethods", &lreq.base, 3000, md, 2, &id_b) == PW_OK, "send b");
    CHECK(pw_in_flight(c) == 2, "two in flight");
    ProtobufCMessage *resp = NULL;
    pw_status st;
    rc = pw_recv(c, id_a, &pushwire__v1__health_check_response__descriptor, 3000, &resp, &st);
    CHECK(rc == PW_OK && st.code == PW_STATUS_OK && resp != NULL, "recv a: %s", pw_strerror(rc));
    if (resp) {
        CHECK(((Pushwire__V1__HealthCheckResponse *)resp)->status == PUSHWIRE__V1__SERVING_STATUS__SERVING_STATUS_SERVING, "serving");
        protobuf_c_message_free_unpacked(resp, NULL);
    }
    rc = pw_recv(c, id_b, pw_method_output("/pushwire.v1.Reflection/ListMethods"), 3000, &resp, &st);
    CHECK(rc == PW_OK && resp != NULL, "recv b: %s", pw_strerror(rc));
    if (resp) {
        Pushwire__V1__ListMethodsResponse *l = (Pushwire__V1__ListMethodsResponse *)resp;
        CHECK(l->n_methods == 1 && strcmp(l->methods[0]->path, "/echo/me") == 0, "metadata reached the server");
        protobuf_c_message_free_unpacked(resp, NULL);
    }
    CHECK(pw_recv(c, id_b, NULL, 100, &resp, &st) == PW_ERR_UNKNOWN_CALL, "answer taken once");

    /* 2. error status */
    rc = pw_call(c, "/x/y", &lreq.base, &pushwire__v1__list_methods_response__descriptor, 3000, NULL, 0, &resp, &st);
    CHECK(rc == PW_OK && st.code == PW_STATUS_UNIMPLEMENTED && resp == NULL &&
          strcmp(st.message, "no method /x/y") == 0, "unimplemented: rc=%d code=%u", rc, st.code);
    CHECK(strcmp(pw_status_name(st.code), "UNIMPLEMENTED") == 0, "status name");

    /* 3. ping both ways */
    rc = pw_ping(c, 0xfeedface, 3000);
    CHECK(rc == PW_OK, "ping: %s", pw_strerror(rc));

    /* 4. local timeout cancels */
    rc = pw_call(c, "/pushwire.v1.Health/Check", &hreq.base, &pushwire__v1__health_check_response__descriptor, 200, NULL, 0, &resp, &st);
    CHECK(rc == PW_ERR_TIMEOUT && resp == NULL, "timeout: %s", pw_strerror(rc));
    CHECK(pw_in_flight(c) == 0, "cancelled call is no longer in flight");

    /* 5. the server's frame limit (1024) is enforced before sending */
    static char big[2048];
    memset(big, 'x', sizeof big - 1);
    hreq.service = big;
    uint32_t id = 0;
    CHECK(pw_send(c, "/pushwire.v1.Health/Check", &hreq.base, 0, NULL, 0, &id) == PW_ERR_FRAME_TOO_LARGE, "too large");
    hreq.service = "";
    rc = pw_call(c, "/pushwire.v1.Health/Check", &hreq.base, &pushwire__v1__health_check_response__descriptor, 3000, NULL, 0, &resp, &st);
    CHECK(rc == PW_OK && st.code == 0 && resp, "usable after a refused send (late answer dropped): %s", pw_strerror(rc));
    if (resp) protobuf_c_message_free_unpacked(resp, NULL);

    /* 5b. more calls than max_concurrent_calls (8): pw_send waits for a free slot */
    uint32_t ids[10];
    int sent_all = 1;
    for (int i = 0; i < 10; i++) sent_all &= pw_send(c, "/pushwire.v1.Health/Check", &hreq.base, 3000, NULL, 0, &ids[i]) == PW_OK;
    CHECK(sent_all, "ten sends against a limit of eight");
    int ok_all = 1;
    for (int i = 0; i < 10 && sent_all; i++) {
        rc = pw_recv(c, ids[i], &pushwire__v1__health_check_response__descriptor, 3000, &resp, &st);
        ok_all &= rc == PW_OK && st.code == 0;
        if (resp) protobuf_c_message_free_unpacked(resp, NULL);
    }
    CHECK(ok_all && ids[9] > ids[0], "all ten answered, ids increasing");

    /* 6. GoAway */
    uint32_t id_d = 0, id_e = 0;
    pw_send(c, "/pushwire.v1.Health/Check", &hreq.base, 0, NULL, 0, &id_d);
    pw_send(c, "/pushwire.v1.Health/Check", &hreq.base, 0, NULL, 0, &id_e);
    rc = pw_recv(c, id_e, &pushwire__v1__health_check_response__descriptor, 3000, &resp, &st);
    CHECK(rc == PW_ERR_GOING_AWAY, "call above last_call_id: %s", pw_strerror(rc));
    rc = pw_recv(c, id_d, &pushwire__v1__health_check_response__descriptor, 3000, &resp, &st);
    CHECK(rc == PW_OK && st.code == 0, "call up to last_call_id finishes: %s", pw_strerror(rc));
    if (resp) protobuf_c_message_free_unpacked(resp, NULL);
    CHECK(pw_send(c, "/pushwire.v1.Health/Check", &hreq.base, 0, NULL, 0, &id) == PW_ERR_GOING_AWAY, "no new calls");
    pw_close(c);
    CHECK(wait_server(pid) == 0, "the fake server saw what it expected");
}

static void test_bad_preface(void) {
    uint16_t port = 0;
    pid_t pid = start_server(1, &port);
    pw_conn *c = NULL;
    int rc = pw_connect("127.0.0.1", port, 3000, &c);
    CHECK(rc == PW_ERR_BAD_PREFACE && c == NULL, "bad preface: %s", pw_strerror(rc));
    wait_server(pid);
}

static void test_connect_refused(void) {
    pw_conn *c = NULL;
    int rc = pw_connect("127.0.0.1", 1, 1000, &c); /* nothing listens on port 1 */
    CHECK(rc == PW_ERR_SYSTEM && c == NULL, "refused: %s", pw_strerror(rc));
    CHECK(pw_connect("no-such-host.invalid", 80, 1000, &c) == PW_ERR_RESOLVE, "resolve");
}

static void test_reader_edges(void) {
    pw_reader r = { .max_frame_size = 100 };
    Pushwire__V1__Frame *f = NULL;
    const uint8_t huge[4] = { 0xff, 0xff, 0xff, 0xff };
    pw_reader_append(&r, huge, 4);
    CHECK(pw_reader_next(&r, &f) == PW_ERR_FRAME_TOO_LARGE && f == NULL, "4 GiB prefix refused at once");
    pw_reader_free(&r);

    pw_reader z = { .max_frame_size = 100 };
    const uint8_t empty[4] = { 0, 0, 0, 0 };
    pw_reader_append(&z, empty, 4);
    CHECK(pw_reader_next(&z, &f) == PW_ERR_PROTOCOL, "zero-length frame has no kind");
    pw_reader_free(&z);

    pw_reader g = { .max_frame_size = 100 };
    const uint8_t garbage[7] = { 0, 0, 0, 3, 0xff, 0xff, 0xff };
    pw_reader_append(&g, garbage, 7);
    CHECK(pw_reader_next(&g, &f) == PW_ERR_PROTOCOL, "garbage payload");
    pw_reader_free(&g);

    pw_reader p = { .max_frame_size = 100 };
    pw_reader_append(&p, (const uint8_t *)"PWI", 3);
    CHECK(pw_reader_preface(&p) == 1, "partial preface waits");
    pw_reader_append(&p, (const uint8_t *)"X", 1);
    CHECK(pw_reader_preface(&p) == PW_ERR_BAD_PREFACE, "wrong byte fails early");
    pw_reader_free(&p);

    CHECK(pw_method_input("/pushwire.v1.Devices/RegisterDevice") == &pushwire__v1__health_check_request__descriptor ? 0 : 1, "method table distinguishes");
    CHECK(pw_method_output("/pushwire.v1.Nope/Check") == NULL, "unknown service");
    CHECK(pw_message_descriptor("pushwire.v1.Button") != NULL, "nested message found");
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    test_reader_edges();
    test_connect_refused();
    test_bad_preface();
    test_conversation();
    return pw_test_summary("test_client");
}
