/* Framing: a 4-byte big-endian length N, then N bytes of a protobuf Frame. */
#include <stdlib.h>
#include <string.h>

#include "pushwire_client.h"
#include "pw_internal.h"

int pw_frame_encode(const Pushwire__V1__Frame *frame, uint32_t max_frame_size, uint8_t **out,
                    size_t *out_len) {
    size_t size = pushwire__v1__frame__get_packed_size(frame);
    if (size > max_frame_size) return PW_ERR_FRAME_TOO_LARGE;
    uint8_t *buf = malloc(4 + size);
    if (buf == NULL) return PW_ERR_NO_MEMORY;
    buf[0] = (uint8_t)(size >> 24);
    buf[1] = (uint8_t)(size >> 16);
    buf[2] = (uint8_t)(size >> 8);
    buf[3] = (uint8_t)size;
    pushwire__v1__frame__pack(frame, buf + 4);
    *out = buf;
    *out_len = 4 + size;
    return PW_OK;
}

int pw_reader_append(pw_reader *r, const uint8_t *bytes, size_t count) {
    if (r->len + count > r->cap) {
        size_t cap = r->cap ? r->cap : 4096;
        while (cap < r->len + count) cap *= 2;
        uint8_t *grown = realloc(r->buf, cap);
        if (grown == NULL) return PW_ERR_NO_MEMORY;
        r->buf = grown;
        r->cap = cap;
    }
    memcpy(r->buf + r->len, bytes, count);
    r->len += count;
    return PW_OK;
}

static void consume(pw_reader *r, size_t count) {
    memmove(r->buf, r->buf + count, r->len - count);
    r->len -= count;
}

int pw_reader_preface(pw_reader *r) {
    size_t have = r->len < PW_PREFACE_SIZE ? r->len : PW_PREFACE_SIZE;
    /* Fail on the first wrong byte rather than waiting for all eight. */
    if (memcmp(r->buf, PW_PREFACE, have) != 0) return PW_ERR_BAD_PREFACE;
    if (have < PW_PREFACE_SIZE) return 1;
    consume(r, PW_PREFACE_SIZE);
    return PW_OK;
}

int pw_reader_next(pw_reader *r, Pushwire__V1__Frame **frame) {
    *frame = NULL;
    if (r->len < 4) return PW_OK;
    uint32_t size = ((uint32_t)r->buf[0] << 24) | ((uint32_t)r->buf[1] << 16) |
                    ((uint32_t)r->buf[2] << 8) | (uint32_t)r->buf[3];
    if (size > r->max_frame_size) return PW_ERR_FRAME_TOO_LARGE;
    if (r->len - 4 < size) return PW_OK;
    Pushwire__V1__Frame *f = pushwire__v1__frame__unpack(NULL, size, r->buf + 4);
    consume(r, 4 + (size_t)size);
    if (f == NULL) return PW_ERR_PROTOCOL;
    if (f->kind_case == PUSHWIRE__V1__FRAME__KIND__NOT_SET) {
        pushwire__v1__frame__free_unpacked(f, NULL);
        return PW_ERR_PROTOCOL;
    }
    *frame = f;
    return PW_OK;
}

void pw_reader_free(pw_reader *r) {
    free(r->buf);
    r->buf = NULL;
    r->len = r->cap = 0;
}
