/*
 * The Pushwire connection: preface and Settings, calls multiplexed by call id, answers kept until
 * claimed, Cancel, Ping/Pong and GoAway.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pushwire_client.h"
#include "pw_internal.h"

/* An answer that arrived for a call nobody has claimed yet. */
typedef struct pw_answer {
    Pushwire__V1__Frame *frame; /* owned; kind is response */
    struct pw_answer *next;
} pw_answer;

struct pw_conn {
    int fd;
    pw_tls *tls;                         /* NULL in clear text */
    pw_reader reader;
    Pushwire__V1__Frame *settings_frame; /* owned; kind is settings */
    uint32_t max_send_frame;             /* the server's announced limit */
    uint32_t next_call_id;
    uint32_t *in_flight;                 /* calls sent, not answered, not cancelled */
    size_t n_in_flight, cap_in_flight;
    pw_answer *answers;
    int broken;                          /* first fatal error; every later call reports it */
    int going_away;
    uint32_t go_away_last_call_id;
    int awaiting_pong;
    uint64_t awaited_pong_payload;
    int ids_exhausted;
};

/* ---- the in-flight set: small, so a linear array beats anything cleverer ---- */

static ssize_t in_flight_index(const pw_conn *c, uint32_t id) {
    for (size_t i = 0; i < c->n_in_flight; i++) {
        if (c->in_flight[i] == id) return (ssize_t)i;
    }
    return -1;
}

static int in_flight_add(pw_conn *c, uint32_t id) {
    if (c->n_in_flight == c->cap_in_flight) {
        size_t cap = c->cap_in_flight ? c->cap_in_flight * 2 : 16;
        uint32_t *grown = realloc(c->in_flight, cap * sizeof *grown);
        if (grown == NULL) return PW_ERR_NO_MEMORY;
        c->in_flight = grown;
        c->cap_in_flight = cap;
    }
    c->in_flight[c->n_in_flight++] = id;
    return PW_OK;
}

static void in_flight_remove(pw_conn *c, uint32_t id) {
    ssize_t i = in_flight_index(c, id);
    if (i >= 0) c->in_flight[i] = c->in_flight[--c->n_in_flight];
}

/* ---- sending ---- */

/* The connection's bytes, through TLS when it has it. */
static int conn_write(pw_conn *c, const uint8_t *buf, size_t len, int64_t deadline) {
#ifdef PW_WITH_TLS
    if (c->tls != NULL) return pw_tls_write_all(c->tls, buf, len, deadline);
#endif
    return pw_io_write_all(c->fd, buf, len, deadline);
}

static long conn_read(pw_conn *c, uint8_t *buf, size_t cap, int64_t deadline) {
#ifdef PW_WITH_TLS
    if (c->tls != NULL) return pw_tls_read_some(c->tls, buf, cap, deadline);
#endif
    return pw_io_read_some(c->fd, buf, cap, deadline);
}

static int send_frame(pw_conn *c, const Pushwire__V1__Frame *frame, int64_t deadline) {
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = pw_frame_encode(frame, c->max_send_frame, &buf, &len);
    if (rc != PW_OK) return rc;
    rc = conn_write(c, buf, len, deadline);
    free(buf);
    /* A partial write leaves the stream mid-frame: the connection cannot be used again. */
    if (rc != PW_OK) c->broken = rc;
    return rc;
}

static int send_pong(pw_conn *c, uint64_t payload, int64_t deadline) {
    Pushwire__V1__Pong pong = PUSHWIRE__V1__PONG__INIT;
    pong.payload = payload;
    Pushwire__V1__Frame frame = PUSHWIRE__V1__FRAME__INIT;
    frame.kind_case = PUSHWIRE__V1__FRAME__KIND_PONG;
    frame.pong = &pong;
    return send_frame(c, &frame, deadline);
}

/* ---- receiving ---- */

/* Reads until one frame is complete; *frame is owned by the caller. */
static int read_frame(pw_conn *c, int64_t deadline, Pushwire__V1__Frame **frame) {
    for (;;) {
        int rc = pw_reader_next(&c->reader, frame);
        if (rc != PW_OK) { c->broken = rc; return rc; }
        if (*frame != NULL) return PW_OK;
        uint8_t chunk[16384];
        long n = conn_read(c, chunk, sizeof chunk, deadline);
        if (n < 0) {
            if (n != PW_ERR_TIMEOUT) c->broken = (int)n;
            return (int)n;
        }
        rc = pw_reader_append(&c->reader, chunk, (size_t)n);
        if (rc != PW_OK) { c->broken = rc; return rc; }
    }
}

/* Reads one frame and files it: answers are kept for their call, pings answered, pongs noted. */
static int pump(pw_conn *c, int64_t deadline) {
    Pushwire__V1__Frame *f = NULL;
    int rc = read_frame(c, deadline, &f);
    if (rc != PW_OK) return rc;
    switch (f->kind_case) {
    case PUSHWIRE__V1__FRAME__KIND_RESPONSE:
        /* Answers to cancelled or unknown calls, and streamed items (no status; no v1 method
         * streams), are dropped. */
        if (f->response->status != NULL && in_flight_index(c, f->call_id) >= 0) {
            pw_answer *a = malloc(sizeof *a);
            if (a == NULL) { pushwire__v1__frame__free_unpacked(f, NULL); return PW_ERR_NO_MEMORY; }
            in_flight_remove(c, f->call_id);
            a->frame = f;
            a->next = c->answers;
            c->answers = a;
            return PW_OK;
        }
        break;
    case PUSHWIRE__V1__FRAME__KIND_PING:
        rc = send_pong(c, f->ping->payload, deadline);
        break;
    case PUSHWIRE__V1__FRAME__KIND_PONG:
        if (c->awaiting_pong && f->pong->payload == c->awaited_pong_payload) c->awaiting_pong = 0;
        break;
    case PUSHWIRE__V1__FRAME__KIND_GO_AWAY:
        c->going_away = 1;
        c->go_away_last_call_id = f->go_away->last_call_id;
        break;
    case PUSHWIRE__V1__FRAME__KIND_SETTINGS:
        break; /* only the first one matters; later ones are tolerated */
    default:
        /* Requests and cancels only travel from client to server. */
        rc = PW_ERR_PROTOCOL;
        c->broken = rc;
        break;
    }
    pushwire__v1__frame__free_unpacked(f, NULL);
    return rc;
}

/* ---- connecting ---- */

static int connect_with(const char *host, uint16_t port, int timeout_ms, const pw_tls_options *tls,
                        pw_conn **out, char *why, size_t why_size) {
    if (out == NULL || host == NULL) return PW_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (why != NULL && why_size > 0) why[0] = '\0';
#ifndef PW_WITH_TLS
    if (tls != NULL) return PW_ERR_NO_TLS;
#endif
    int64_t deadline = pw_deadline_after(timeout_ms > 0 ? timeout_ms : 10000);
    int fd = pw_io_connect(host, port, deadline);
    if (fd < 0) return fd;
    pw_conn *c = calloc(1, sizeof *c);
    if (c == NULL) { close(fd); return PW_ERR_NO_MEMORY; }
    c->fd = fd;
    c->reader.max_frame_size = PW_DEFAULT_MAX_FRAME_SIZE;
    c->max_send_frame = PW_DEFAULT_MAX_FRAME_SIZE;
    c->next_call_id = 1;

    int rc = PW_OK;
#ifdef PW_WITH_TLS
    if (tls != NULL) rc = pw_tls_start(fd, tls, host, deadline, &c->tls, why, why_size);
#endif
    if (rc == PW_OK) rc = conn_write(c, (const uint8_t *)PW_PREFACE, PW_PREFACE_SIZE, deadline);
    while (rc == PW_OK) {
        rc = pw_reader_preface(&c->reader);
        if (rc != 1) break;
        uint8_t chunk[64];
        /* Read at most the preface here; the frames behind it go through read_frame. */
        long n = conn_read(c, chunk, PW_PREFACE_SIZE - c->reader.len, deadline);
        rc = n < 0 ? (int)n : pw_reader_append(&c->reader, chunk, (size_t)n);
    }
    Pushwire__V1__Frame *f = NULL;
    if (rc == PW_OK) rc = read_frame(c, deadline, &f);
    if (rc == PW_OK && f->kind_case != PUSHWIRE__V1__FRAME__KIND_SETTINGS) {
        pushwire__v1__frame__free_unpacked(f, NULL);
        rc = PW_ERR_PROTOCOL;
    }
    if (rc != PW_OK) {
        int saved = errno;
        pw_close(c);
        errno = saved;
        return rc;
    }
    c->settings_frame = f;
    if (f->settings->max_frame_size != 0) c->max_send_frame = f->settings->max_frame_size;
    c->broken = PW_OK;
    *out = c;
    return PW_OK;
}

int pw_connect(const char *host, uint16_t port, int timeout_ms, pw_conn **out) {
    return connect_with(host, port, timeout_ms, NULL, out, NULL, 0);
}

int pw_connect_tls(const char *host, uint16_t port, int timeout_ms, const pw_tls_options *tls,
                   pw_conn **out, char *why, size_t why_size) {
    if (tls == NULL) return PW_ERR_INVALID_ARGUMENT;
    return connect_with(host, port, timeout_ms, tls, out, why, why_size);
}

void pw_close(pw_conn *c) {
    if (c == NULL) return;
#ifdef PW_WITH_TLS
    pw_tls_free(c->tls);
#endif
    if (c->fd >= 0) close(c->fd);
    pw_reader_free(&c->reader);
    if (c->settings_frame) pushwire__v1__frame__free_unpacked(c->settings_frame, NULL);
    while (c->answers) {
        pw_answer *a = c->answers;
        c->answers = a->next;
        pushwire__v1__frame__free_unpacked(a->frame, NULL);
        free(a);
    }
    free(c->in_flight);
    free(c);
}

const Pushwire__V1__Settings *pw_settings(const pw_conn *c) {
    return c && c->settings_frame ? c->settings_frame->settings : NULL;
}

size_t pw_in_flight(const pw_conn *c) { return c ? c->n_in_flight : 0; }

/* ---- calls ---- */

/* Ids increase and are never reused on a connection (PROTOCOL.md: GoAway.last_call_id only means
 * something for increasing ids, and a cancelled id stays reserved until its late answer). */
static int take_call_id(pw_conn *c, uint32_t *id) {
    if (c->ids_exhausted) return PW_ERR_IDS_EXHAUSTED;
    *id = c->next_call_id++;
    if (c->next_call_id == 0) c->ids_exhausted = 1;
    return PW_OK;
}

/* Waits, reading frames, until fewer than the server's max_concurrent_calls are in flight. */
static int wait_for_slot(pw_conn *c, int64_t deadline) {
    const Pushwire__V1__Settings *s = pw_settings(c);
    size_t limit = s && s->max_concurrent_calls ? s->max_concurrent_calls : SIZE_MAX;
    while (c->n_in_flight >= limit) {
        int rc = pump(c, deadline);
        if (rc != PW_OK) return rc;
    }
    return PW_OK;
}

int pw_send(pw_conn *c, const char *method, const ProtobufCMessage *request, int timeout_ms,
            const pw_metadata *metadata, size_t metadata_count, uint32_t *call_id) {
    if (request == NULL) return PW_ERR_INVALID_ARGUMENT;
    size_t body_len = protobuf_c_message_get_packed_size(request);
    uint8_t *body = malloc(body_len ? body_len : 1);
    if (body == NULL) return PW_ERR_NO_MEMORY;
    protobuf_c_message_pack(request, body);
    int rc = pw_send_raw(c, method, body, body_len, timeout_ms, metadata, metadata_count, call_id);
    free(body);
    return rc;
}

int pw_send_raw(pw_conn *c, const char *method, const uint8_t *body, size_t body_len, int timeout_ms,
                const pw_metadata *metadata, size_t metadata_count, uint32_t *call_id) {
    if (c == NULL || method == NULL || call_id == NULL || (body == NULL && body_len > 0) ||
        (metadata == NULL && metadata_count > 0)) {
        return PW_ERR_INVALID_ARGUMENT;
    }
    if (c->broken != PW_OK) return c->broken;
    if (c->going_away) return PW_ERR_GOING_AWAY;

    Pushwire__V1__Metadata *entries = calloc(metadata_count ? metadata_count : 1, sizeof *entries);
    Pushwire__V1__Metadata **pointers = calloc(metadata_count ? metadata_count : 1, sizeof *pointers);
    int rc = PW_ERR_NO_MEMORY;
    if (entries && pointers) {
        for (size_t i = 0; i < metadata_count; i++) {
            pushwire__v1__metadata__init(&entries[i]);
            /* protobuf-c never writes through these when packing. */
            entries[i].key = (char *)metadata[i].key;
            entries[i].value = (char *)metadata[i].value;
            pointers[i] = &entries[i];
        }
        Pushwire__V1__Request req = PUSHWIRE__V1__REQUEST__INIT;
        req.method = (char *)method;
        req.timeout_ms = timeout_ms > 0 ? (uint32_t)timeout_ms : 0;
        req.n_metadata = metadata_count;
        req.metadata = pointers;
        req.message.data = (uint8_t *)body;
        req.message.len = body_len;
        Pushwire__V1__Frame frame = PUSHWIRE__V1__FRAME__INIT;
        frame.kind_case = PUSHWIRE__V1__FRAME__KIND_REQUEST;
        frame.request = &req;
        int64_t deadline = pw_deadline_after(timeout_ms);
        rc = wait_for_slot(c, deadline);
        if (rc == PW_OK) rc = take_call_id(c, &frame.call_id);
        if (rc == PW_OK) rc = in_flight_add(c, frame.call_id);
        if (rc == PW_OK) {
            rc = send_frame(c, &frame, deadline);
            if (rc == PW_OK) *call_id = frame.call_id;
            else in_flight_remove(c, frame.call_id);
        }
    }
    free(entries);
    free(pointers);
    return rc;
}

/* Removes and returns the kept answer to call_id, or NULL. */
static pw_answer *take_answer(pw_conn *c, uint32_t call_id) {
    for (pw_answer **link = &c->answers; *link; link = &(*link)->next) {
        if ((*link)->frame->call_id == call_id) {
            pw_answer *a = *link;
            *link = a->next;
            return a;
        }
    }
    return NULL;
}

static void set_status(pw_status *status, uint32_t code, const char *message) {
    status->code = code;
    snprintf(status->message, sizeof status->message, "%s", message ? message : "");
}

int pw_recv(pw_conn *c, uint32_t call_id, const ProtobufCMessageDescriptor *response_descriptor,
            int timeout_ms, ProtobufCMessage **response, pw_status *status) {
    if (c == NULL || response == NULL || status == NULL) return PW_ERR_INVALID_ARGUMENT;
    *response = NULL;
    set_status(status, PW_STATUS_UNKNOWN, "");
    int64_t deadline = pw_deadline_after(timeout_ms);
    pw_answer *a;
    while ((a = take_answer(c, call_id)) == NULL) {
        if (in_flight_index(c, call_id) < 0) return PW_ERR_UNKNOWN_CALL;
        if (c->going_away && call_id > c->go_away_last_call_id) {
            in_flight_remove(c, call_id);
            return PW_ERR_GOING_AWAY;
        }
        if (c->broken != PW_OK) return c->broken;
        int rc = pump(c, deadline);
        if (rc != PW_OK) return rc;
    }
    const Pushwire__V1__Response *r = a->frame->response;
    set_status(status, r->status->code, r->status->message);
    int rc = PW_OK;
    if (r->status->code == PW_STATUS_OK && response_descriptor != NULL) {
        *response = protobuf_c_message_unpack(response_descriptor, NULL, r->message.len, r->message.data);
        if (*response == NULL) rc = PW_ERR_DECODE;
    }
    pushwire__v1__frame__free_unpacked(a->frame, NULL);
    free(a);
    return rc;
}

int pw_cancel(pw_conn *c, uint32_t call_id) {
    if (c == NULL) return PW_ERR_INVALID_ARGUMENT;
    pw_answer *a = take_answer(c, call_id);
    if (a) { /* already answered: nothing to tell the server */
        pushwire__v1__frame__free_unpacked(a->frame, NULL);
        free(a);
        return PW_OK;
    }
    if (in_flight_index(c, call_id) < 0) return PW_ERR_UNKNOWN_CALL;
    in_flight_remove(c, call_id);
    if (c->broken != PW_OK) return c->broken;
    Pushwire__V1__Cancel cancel = PUSHWIRE__V1__CANCEL__INIT;
    Pushwire__V1__Frame frame = PUSHWIRE__V1__FRAME__INIT;
    frame.call_id = call_id;
    frame.kind_case = PUSHWIRE__V1__FRAME__KIND_CANCEL;
    frame.cancel = &cancel;
    return send_frame(c, &frame, pw_deadline_after(5000));
}

int pw_call(pw_conn *c, const char *method, const ProtobufCMessage *request,
            const ProtobufCMessageDescriptor *response_descriptor, int timeout_ms,
            const pw_metadata *metadata, size_t metadata_count, ProtobufCMessage **response,
            pw_status *status) {
    uint32_t id = 0;
    if (response) *response = NULL;
    int rc = pw_send(c, method, request, timeout_ms, metadata, metadata_count, &id);
    if (rc != PW_OK) return rc;
    rc = pw_recv(c, id, response_descriptor, timeout_ms, response, status);
    if (rc == PW_ERR_TIMEOUT) (void)pw_cancel(c, id);
    return rc;
}

int pw_ping(pw_conn *c, uint64_t payload, int timeout_ms) {
    if (c == NULL) return PW_ERR_INVALID_ARGUMENT;
    if (c->broken != PW_OK) return c->broken;
    int64_t deadline = pw_deadline_after(timeout_ms);
    Pushwire__V1__Ping ping = PUSHWIRE__V1__PING__INIT;
    ping.payload = payload;
    Pushwire__V1__Frame frame = PUSHWIRE__V1__FRAME__INIT;
    frame.kind_case = PUSHWIRE__V1__FRAME__KIND_PING;
    frame.ping = &ping;
    int rc = send_frame(c, &frame, deadline);
    c->awaiting_pong = 1;
    c->awaited_pong_payload = payload;
    while (rc == PW_OK && c->awaiting_pong) rc = pump(c, deadline);
    c->awaiting_pong = 0;
    return rc;
}
