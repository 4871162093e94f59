/*
 * Golden vectors: decodes every file listed in Tests/Vectors/manifest.json with protobuf-c and
 * re-encodes it byte for byte — the frame and, where there is one, the method message inside.
 *   test_vectors <vectors-dir>
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "pushwire_client.h"
#include "pw_internal.h"
#include "pw_test.h"
#include "mini_json.h"

typedef struct entry {
    char file[256], kind[32], hex[MJ_MAX_TEXT], inner_type[128], inner_hex[MJ_MAX_TEXT];
} entry;

static const char *vectors_dir;
static entry current;
static int entries_seen;

static uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            uint8_t *grown = realloc(buf, cap);
            if (!grown) { free(buf); fclose(f); return NULL; }
            buf = grown;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    *len = n;
    return buf;
}

static void to_hex(const uint8_t *b, size_t n, char *out, size_t cap) {
    size_t o = 0;
    for (size_t i = 0; i < n && o + 3 <= cap; i++) o += (size_t)snprintf(out + o, cap - o, "%02x", b[i]);
    out[o < cap ? o : cap - 1] = '\0';
}

static const char *kind_name(Pushwire__V1__Frame__KindCase k) {
    switch (k) {
    case PUSHWIRE__V1__FRAME__KIND_REQUEST: return "request";
    case PUSHWIRE__V1__FRAME__KIND_RESPONSE: return "response";
    case PUSHWIRE__V1__FRAME__KIND_CANCEL: return "cancel";
    case PUSHWIRE__V1__FRAME__KIND_PING: return "ping";
    case PUSHWIRE__V1__FRAME__KIND_PONG: return "pong";
    case PUSHWIRE__V1__FRAME__KIND_GO_AWAY: return "go_away";
    case PUSHWIRE__V1__FRAME__KIND_SETTINGS: return "settings";
    default: return "none";
    }
}

static void check_inner(const entry *e, const Pushwire__V1__Frame *f) {
    const ProtobufCBinaryData *body = NULL;
    if (f->kind_case == PUSHWIRE__V1__FRAME__KIND_REQUEST) body = &f->request->message;
    if (f->kind_case == PUSHWIRE__V1__FRAME__KIND_RESPONSE) body = &f->response->message;
    const ProtobufCMessageDescriptor *d = pw_message_descriptor(e->inner_type);
    CHECK(d != NULL, "%s: no descriptor for %s", e->file, e->inner_type);
    CHECK(body != NULL, "%s: inner message on a %s frame", e->file, e->kind);
    if (!d || !body) return;
    if (f->kind_case == PUSHWIRE__V1__FRAME__KIND_REQUEST) {
        CHECK(pw_method_input(f->request->method) == d, "%s: method table disagrees for %s", e->file,
              f->request->method);
    }
    ProtobufCMessage *m = protobuf_c_message_unpack(d, NULL, body->len, body->data);
    CHECK(m != NULL, "%s: %s does not decode", e->file, e->inner_type);
    if (!m) return;
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *again = malloc(n ? n : 1);
    protobuf_c_message_pack(m, again);
    CHECK(n == body->len && memcmp(again, body->data, n) == 0, "%s: %s re-encodes differently",
          e->file, e->inner_type);
    char hex[MJ_MAX_TEXT];
    to_hex(again, n, hex, sizeof hex);
    CHECK(e->inner_hex[0] == '\0' || strcmp(hex, e->inner_hex) == 0, "%s: inner hex differs", e->file);
    free(again);
    protobuf_c_message_free_unpacked(m, NULL);
}

static void check_entry(const entry *e) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", vectors_dir, e->file);
    size_t len = 0;
    uint8_t *bytes = read_file(path, &len);
    CHECK(bytes != NULL, "cannot read %s", path);
    if (!bytes) return;
    entries_seen++;
    char hex[MJ_MAX_TEXT];
    to_hex(bytes, len, hex, sizeof hex);
    CHECK(e->hex[0] == '\0' || strcmp(hex, e->hex) == 0, "%s: file differs from the manifest's hex", e->file);

    if (strcmp(e->kind, "preface") == 0) {
        CHECK(len == PW_PREFACE_SIZE && memcmp(bytes, PW_PREFACE, len) == 0, "%s: not the preface", e->file);
        pw_reader r = { .max_frame_size = PW_DEFAULT_MAX_FRAME_SIZE };
        pw_reader_append(&r, bytes, len);
        CHECK(pw_reader_preface(&r) == PW_OK && r.len == 0, "%s: reader rejects the preface", e->file);
        pw_reader_free(&r);
        free(bytes);
        return;
    }

    /* Fed one byte at a time, the incremental reader yields exactly one frame, at the end. */
    pw_reader r = { .max_frame_size = PW_DEFAULT_MAX_FRAME_SIZE };
    Pushwire__V1__Frame *f = NULL;
    int early = 0;
    for (size_t i = 0; i < len; i++) {
        pw_reader_append(&r, bytes + i, 1);
        int rc = pw_reader_next(&r, &f);
        if (rc != PW_OK) { CHECK(rc == PW_OK, "%s: reader error %s", e->file, pw_strerror(rc)); break; }
        if (f && i + 1 < len) early = 1;
        if (f) break;
    }
    CHECK(f != NULL && !early && r.len == 0, "%s: frame not decoded exactly at its last byte", e->file);
    pw_reader_free(&r);
    if (f) {
        CHECK(strcmp(kind_name(f->kind_case), e->kind) == 0, "%s: kind %s, manifest says %s", e->file,
              kind_name(f->kind_case), e->kind);
        uint8_t *again = NULL;
        size_t again_len = 0;
        int rc = pw_frame_encode(f, PW_DEFAULT_MAX_FRAME_SIZE, &again, &again_len);
        CHECK(rc == PW_OK && again_len == len && memcmp(again, bytes, len) == 0,
              "%s: frame re-encodes differently", e->file);
        free(again);
        if (e->inner_type[0]) check_inner(e, f);
        pushwire__v1__frame__free_unpacked(f, NULL);
    }
    free(bytes);
}

static void visit(void *ctx, const mj_path *p, const char *key, const char *value) {
    (void)ctx;
    /* A vector is an object inside the root's "vectors" array: depth 2 around its own fields. */
    int in_vector = p->depth >= 2 && strcmp(p->keys[1], "vectors") == 0;
    if (!in_vector) return;
    if (value == NULL) {
        if (p->depth == 2) { /* the vector's object just closed */
            if (current.file[0]) check_entry(&current);
            memset(&current, 0, sizeof current);
        }
        return;
    }
    if (p->depth == 3) {
        if (strcmp(key, "file") == 0) snprintf(current.file, sizeof current.file, "%s", value);
        if (strcmp(key, "kind") == 0) snprintf(current.kind, sizeof current.kind, "%s", value);
        if (strcmp(key, "hex") == 0) snprintf(current.hex, sizeof current.hex, "%s", value);
    } else if (p->depth == 4 && strcmp(p->keys[3], "inner") == 0) {
        if (strcmp(key, "type") == 0) snprintf(current.inner_type, sizeof current.inner_type, "%s", value);
        if (strcmp(key, "hex") == 0) snprintf(current.inner_hex, sizeof current.inner_hex, "%s", value);
    }
}

int main(int argc, char **argv) {
    vectors_dir = argc > 1 ? argv[1] : "../../Tests/Vectors";
    char path[1024];
    snprintf(path, sizeof path, "%s/manifest.json", vectors_dir);
    size_t len = 0;
    uint8_t *text = read_file(path, &len);
    if (!text) {
        printf("test_vectors: SKIPPED: %s not found (golden vectors not present)\n", path);
        return pw_test_summary("test_vectors");
    }
    char *doc = malloc(len + 1);
    memcpy(doc, text, len);
    doc[len] = '\0';
    free(text);
    CHECK(mj_walk(doc, visit, NULL) == 0, "manifest.json is not well-formed");
    free(doc);
    CHECK(entries_seen > 0, "manifest lists no vectors");
    printf("test_vectors: %d vector files checked\n", entries_seen);
    return pw_test_summary("test_vectors");
}
